/**
 * JUnit 5 support for tests that need a real RDMA device: {@link io.jrdma.junit.RdmaDeviceTest}.
 *
 * {@snippet class=io.jrdma.junit.snippets.RdmaDeviceTestSnippets region=annotation}
 *
 * <p><b>Lifetimes.</b> Each {@link io.jrdma.ibverbs.Context} parameter is opened for one test and closed after it,
 * by the extension: the test must close what it created from the context (protection domains, queues, ...) first,
 * or that close fails. A {@link io.jrdma.ibverbs.Device} parameter is a plain description, with nothing to close.
 *
 * <p><b>Threads.</b> A context is never confined: the test may hand it to other threads, and confine the queue pairs
 * and completion queues it creates ({@link io.jrdma.ibverbs.ThreadConfinement}) as it likes.
 *
 * <p><b>Errors.</b> Outside the device tier a missing device (no RDMA support in the kernel, libibverbs not
 * installed, no device of the wanted name) skips the test with the reason; inside it (system property
 * {@value io.jrdma.junit.RdmaDeviceExtension#TIER_PROPERTY}{@code =true}) it fails the test. A device that is present
 * but cannot be opened fails the test with the {@link io.jrdma.ibverbs.RdmaException} as the cause.
 */
package io.jrdma.junit;
