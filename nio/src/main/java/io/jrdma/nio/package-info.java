/**
 * {@link io.jrdma.nio.RdmaSelectorProvider}: {@code java.nio} socket channels and selectors over librdmacm's
 * rsockets for the addresses its rules name, and over kernel TCP sockets for the others.
 *
 * <p><b>Lifetimes.</b> A channel owns one native socket, closed by {@code close()} (or by an interrupt of a thread
 * blocked in it); when another thread is reading, writing, waiting or selecting on it at that moment, the descriptor
 * is closed as soon as that thread lets go of it. A selector owns an eventfd, closed by its {@code close()}.
 *
 * <p><b>Threads.</b> As the {@code java.nio.channels} contracts say: one reader and one writer at a time per
 * channel, selects of one selector one at a time, and {@code wakeup}, registration, interest changes and closes
 * from any thread. A blocking operation never blocks in native code: it polls and sleeps, so virtual threads keep
 * their carriers.
 *
 * <p><b>Errors.</b> Bad arguments fail before any native call with the exceptions the channel contracts name. A
 * failed socket call throws the {@link java.io.IOException} {@code java.net} would ({@link java.net.ConnectException},
 * {@link java.net.BindException}, ...) with the C call ({@code rconnect} for an rsocket, {@code connect} for TCP)
 * and its errno in the message. A rule that sends an address over RDMA when no RDMA device serves it fails the
 * bind or connect naming the rule, unless {@code jrdma.nio.fallback=tcp}.
 */
package io.jrdma.nio;
