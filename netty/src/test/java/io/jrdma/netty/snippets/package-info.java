/**
 * The examples of the transport's Javadoc, as {@code {@snippet}} regions: compiled with the tests, so that an
 * example that no longer matches the API breaks the build. They need a device to run and are never run.
 */
package io.jrdma.netty.snippets;
