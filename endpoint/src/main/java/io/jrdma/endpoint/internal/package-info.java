/** Plumbing that jrdma's own modules built on the endpoints share; not for applications. */
package io.jrdma.endpoint.internal;
