/**
 * A native Netty 4.2 transport over jrdma's asynchronous endpoints. An application moves to RDMA by changing its
 * event loop group (a {@link io.netty.channel.MultiThreadIoEventLoopGroup} of {@link io.jrdma.netty.RdmaIoHandler}s)
 * and its channel classes ({@link io.jrdma.netty.RdmaSocketChannel}, {@link io.jrdma.netty.RdmaServerSocketChannel});
 * its handlers stay as they are.
 *
 * {@snippet class=io.jrdma.netty.snippets.NettySnippets region=echo}
 *
 * <p><b>Threads.</b> Each event loop drives one endpoint worker on its own thread: the endpoints' completions and
 * callbacks run there, between Netty's tasks, so a channel's pipeline runs on one thread as with Netty's other
 * transports. A server channel's accepted channels go to the loops of {@code ServerBootstrap}'s child group, any
 * loops of the server's device.
 *
 * <p><b>Wire format.</b> The endpoints' messages: a channel's byte stream is cut into messages where it was
 * flushed (at most the workers' message size each, or up to 1 MiB as the endpoints' large message when several of
 * those are flushed at once) and the peer reads each message as one buffer; a message of no
 * bytes with the immediate value 0 ends the stream ({@code shutdownOutput}), one with the immediate value 1 resets it
 * (a close with {@code SO_LINGER} 0). Both ends must be jrdma-netty channels
 * (or jrdma endpoints that treat the messages as a byte stream).
 *
 * <p><b>Memory.</b> Received buffers are the worker's registered receive buffers, borrowed: releasing a buffer
 * (which Netty's handlers do) returns it and the peer's credit. Written buffers of the channels' default
 * {@link io.jrdma.netty.RdmaByteBufAllocator}, taken on the loop's thread, are sent from where they lie, and so are
 * received buffers written to a channel of the loop they came on (an echo, a proxy); other written bytes are copied
 * into the worker's registered buffer pool.
 */
package io.jrdma.netty;
