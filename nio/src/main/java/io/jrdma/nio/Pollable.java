package io.jrdma.nio;

/** A channel the {@link PollSelector} can wait on: its socket, and the meaning of poll events for it. */
interface Pollable {
    /** The socket to poll now (a channel's socket may still be replaced before it binds or connects). */
    NativeSocket nativeSocket();

    /** The poll events ({@code POLLIN}, {@code POLLOUT}) that stand for the selection {@code ops}. */
    int pollEvents(int ops);

    /** The selection ops of {@code interestOps} that the poll events {@code revents} make ready. */
    int readyOps(int revents, int interestOps);
}
