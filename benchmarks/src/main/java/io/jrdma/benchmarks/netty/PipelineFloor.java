package io.jrdma.benchmarks.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;

import java.util.concurrent.CompletableFuture;

/**
 * The floor under every transport of {@link NettyPerf}'s echo: the same client ({@link Driver}) and server
 * ({@link NettyPerf.Echo}) pipelines on two {@link EmbeddedChannel}s in one thread, each message handed from one
 * channel's outbound queue to the other's inbound side with no I/O at all. A round trip is then two passes through
 * Netty, each a read, its read-complete, a write and a flush: the work any transport's echo adds to its wire, since in
 * a ping-pong the two sides' passes happen one after the other as they do here. An embedded channel keeps its own
 * books on each call (its pending tasks, its exceptions), which a socket channel does not, and a socket channel's read
 * has its receive allocator's, which this one has not.
 */
final class PipelineFloor implements AutoCloseable {
    private final Driver driver;
    private final EmbeddedChannel client;
    private final EmbeddedChannel server;

    PipelineFloor(Driver driver, ChannelHandler echo) {
        this.driver = driver;
        client = new EmbeddedChannel(driver);
        server = new EmbeddedChannel(echo);
    }

    /**
     * One run of {@code n} messages of {@code size} bytes: the driver's start, then what each side writes, handed to
     * the other until the run is over.
     *
     * @param stamps where the run writes the start of each round trip
     * @return the run's time in nanoseconds
     */
    long run(int size, int n, long[] stamps) throws Exception {
        CompletableFuture<Long> run = driver.begin(client, size, n, stamps);
        client.runPendingTasks();
        while (!run.isDone()) {
            if (!hand(client, server) && !hand(server, client)) {
                throw new IllegalStateException("neither side wrote, and the run is not over");
            }
        }
        return run.get();
    }

    /** Hands what {@code from} wrote to {@code to} as one read; whether there was anything. */
    private static boolean hand(EmbeddedChannel from, EmbeddedChannel to) {
        Object msg = from.readOutbound();
        if (msg == null) {
            return false;
        }
        do {
            to.writeOneInbound(msg);
        } while ((msg = from.readOutbound()) != null);
        to.flushInbound();
        return true;
    }

    @Override
    public void close() {
        client.finishAndReleaseAll();
        server.finishAndReleaseAll();
    }
}
