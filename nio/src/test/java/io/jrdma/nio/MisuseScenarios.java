package io.jrdma.nio;

import java.io.Closeable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A child process for {@link MisuseTest} and {@link NioMisuseDeviceTest}: misuses the provider's channels on purpose,
 * one scenario after another, and prints {@code RESULT <scenario> <outcome>} for each, then {@code ALL DONE}. A
 * crash of this JVM ends it before that line. Buffers whose memory is freed (an arena closed) or confined to another
 * thread must be refused with the exception a segment argument would get, before any byte moves; closes racing
 * bind, listen, connect and shutdown must leave those calls a success or a {@link ClosedChannelException}.
 *
 * <p>Its argument is {@code tcp}, to run over TCP on the loopback, or an RDMA device's address, to run over rsockets
 * on it.
 */
final class MisuseScenarios {
    /** What a misuse ended with: the simple name of what it threw, or this. */
    private static final String NONE = "none";
    /** What a race scenario reports when every round ended well. */
    private static final String OK = "ok";
    /** Bigger than glibc's largest mmap threshold, so that closing its arena unmaps it: C touching it faults. */
    private static final long UNMAPPED_WHEN_FREED = 64L << 20;
    /** What a writer sends after a misuse: the reader's bytes up to it show what the misuse moved. */
    private static final String MARK = "mark";
    private static final ExecutorService CLOSER = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("closer").factory());

    private final RdmaSelectorProvider provider;
    private final String address;
    private final int rounds;

    private MisuseScenarios(RdmaSelectorProvider provider, String address, int rounds) {
        this.provider = provider;
        this.address = address;
        this.rounds = rounds;
    }

    /** Each scenario and what it must end with; {@code rdma} for the run over rsockets. */
    static Map<String, String> expected(boolean rdma) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("read-into-closed-arena", "IllegalStateException");
        m.put("scatter-read-into-closed-arena", "IllegalStateException");
        m.put("write-from-closed-arena", "IllegalStateException");
        m.put("gather-write-from-closed-arena", "IllegalStateException");
        m.put("read-into-other-threads-arena", "WrongThreadException");
        m.put("gather-write-from-other-threads-arena", "WrongThreadException");
        m.put("remote-write-from-closed-arena", rdma ? "IllegalStateException" : "IllegalArgumentException");
        m.put("close-racing-bind", OK);
        m.put("close-racing-listen", OK);
        m.put("close-racing-connect", OK);
        m.put("close-racing-shutdown", OK);
        return m;
    }

    public static void main(String[] args) throws Exception {
        boolean tcp = args[0].equals("tcp");
        String address = tcp ? "127.0.0.1" : args[0];
        RdmaSelectorProvider provider = tcp ? RdmaSelectorProvider.withRules("", false)
                : DeviceSupport.rdmaProvider(address);
        // An rsocket's connect takes milliseconds where a kernel socket's takes microseconds.
        new MisuseScenarios(provider, address, tcp ? 2000 : 100).runAll();
        System.out.println("ALL DONE");
    }

    private void runAll() throws Exception {
        try (ServerSocketChannel server = listening();
             SocketChannel client = provider.openSocketChannel()) {
            client.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                buffers(client, peer);
            }
            races(server);
        }
    }

    private ServerSocketChannel listening() throws Exception {
        return provider.openServerSocketChannel().bind(new InetSocketAddress(address, 0));
    }

    /** Freed and foreign memory, each followed by a check that no byte moved. */
    private void buffers(SocketChannel client, SocketChannel peer) throws Exception {
        report("read-into-closed-arena", readMisuse(peer, client, () -> client.read(closedArenaBuffer())));
        report("scatter-read-into-closed-arena", readMisuse(peer, client,
                () -> client.read(new ByteBuffer[] {ByteBuffer.allocateDirect(2), closedArenaBuffer()})));
        report("write-from-closed-arena", writeMisuse(client, peer, () -> client.write(closedArenaBuffer())));
        report("gather-write-from-closed-arena", writeMisuse(client, peer,
                () -> client.write(new ByteBuffer[] {ByteBuffer.wrap(new byte[] {'x'}), closedArenaBuffer()})));
        CountDownLatch done = new CountDownLatch(1);
        try {
            ByteBuffer foreign = otherThreadsBuffer(done);
            report("read-into-other-threads-arena", readMisuse(peer, client, () -> client.read(foreign)));
            report("gather-write-from-other-threads-arena", writeMisuse(client, peer,
                    () -> client.write(new ByteBuffer[] {ByteBuffer.allocateDirect(1), foreign.clear()})));
        } finally {
            done.countDown();
        }
        report("remote-write-from-closed-arena", writeMisuse(client, peer,
                () -> RdmaChannels.write(client, MemorySegment.ofBuffer(closedArenaBuffer()), 0)));
    }

    /**
     * {@code misuse} of {@code reader} while bytes wait to be read: they must all be read after it, before the mark
     * that {@code writer} sends then.
     */
    private static String readMisuse(SocketChannel writer, SocketChannel reader, Callable<?> misuse) throws Exception {
        write(writer, "data");
        String outcome = outcome(misuse);
        write(writer, MARK);
        return outcome + readUpToMark(reader, "data" + MARK);
    }

    /** {@code misuse} of {@code writer}: the next bytes {@code reader} gets must be the mark that follows it. */
    private static String writeMisuse(SocketChannel writer, SocketChannel reader, Callable<?> misuse) throws Exception {
        String outcome = outcome(misuse);
        write(writer, MARK);
        return outcome + readUpToMark(reader, MARK);
    }

    private static void write(SocketChannel channel, String text) throws Exception {
        ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    /** Nothing if {@code channel}'s bytes up to the mark are {@code expected}, else what they were. */
    private static String readUpToMark(SocketChannel channel, String expected) throws Exception {
        StringBuilder text = new StringBuilder();
        ByteBuffer one = ByteBuffer.allocate(1);
        // A byte at a time, so that none after the mark is taken from the next scenario.
        while (!text.toString().endsWith(MARK) && text.length() < 64 && channel.read(one.clear()) > 0) {
            text.append((char) one.get(0));
        }
        return text.toString().equals(expected) ? "" : "+stream-got:" + text.toString().replaceAll("\\W", "?");
    }

    /** A direct buffer of 8 bytes at the start of memory its arena has freed. */
    private static ByteBuffer closedArenaBuffer() {
        Arena arena = Arena.ofShared();
        ByteBuffer buffer = arena.allocate(UNMAPPED_WHEN_FREED).asByteBuffer().limit(8);
        arena.close();
        return buffer;
    }

    /** A direct buffer of a confined arena that another thread owns and keeps open until {@code done}. */
    private static ByteBuffer otherThreadsBuffer(CountDownLatch done) throws Exception {
        CompletableFuture<ByteBuffer> buffer = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                buffer.complete(arena.allocate(8).asByteBuffer());
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return buffer.get();
    }

    /** Closes racing the calls that use a channel's descriptor, each round closing a little later. */
    private void races(ServerSocketChannel server) throws Exception {
        try (Drain drain = new Drain(server)) {
            report("close-racing-bind", race(() -> {
                SocketChannel channel = provider.openSocketChannel();
                return new Round(() -> channel.bind(new InetSocketAddress(address, 0)), channel);
            }));
            report("close-racing-listen", race(() -> {
                ServerSocketChannel channel = provider.openServerSocketChannel();
                return new Round(() -> channel.bind(new InetSocketAddress(address, 0)), channel);
            }));
            report("close-racing-connect", race(() -> {
                SocketChannel channel = provider.openSocketChannel();
                channel.configureBlocking(false);
                return new Round(() -> channel.connect(server.getLocalAddress()), channel);
            }));
            report("close-racing-shutdown", race(() -> {
                SocketChannel channel = provider.openSocketChannel();
                channel.connect(server.getLocalAddress());
                return new Round(channel::shutdownOutput, channel);
            }));
        }
    }

    /** One round of a race: {@code call} on one thread, closing {@code channel} on another. */
    private record Round(Callable<?> call, Closeable channel) {
    }

    /** {@link #OK} if every round's call succeeded or found the channel closed, else the first other outcome. */
    private String race(Callable<Round> next) throws Exception {
        for (int i = 0; i < rounds; i++) {
            Round round = next.call();
            int delay = i % 200;
            CyclicBarrier start = new CyclicBarrier(2);
            Future<?> closed = CLOSER.submit(() -> {
                start.await();
                for (int spin = 0; spin < delay; spin++) {
                    Thread.onSpinWait();
                }
                round.channel().close();
                return null;
            });
            start.await();
            String outcome = outcome(round.call());
            closed.get();
            if (!outcome.equals(NONE) && !outcome.startsWith("ClosedChannelException")
                    && !outcome.startsWith("AsynchronousCloseException")) {
                return outcome;
            }
        }
        return OK;
    }

    /** Accepts and closes the connections of the races until closed. */
    private static final class Drain implements AutoCloseable {
        private final Thread thread;
        private volatile boolean closed;

        Drain(ServerSocketChannel server) {
            thread = Thread.ofPlatform().daemon().start(() -> {
                while (!closed) {
                    try (SocketChannel ignored = server.accept()) {
                        // the race only needs it connected
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** What {@code call} ended with: {@link #NONE}, or what it threw and why, in one word. */
    private static String outcome(Callable<?> call) {
        try {
            call.call();
            return NONE;
        } catch (Throwable t) {
            String simple = t.getClass().getSimpleName();
            if (t instanceof IllegalStateException || t instanceof WrongThreadException
                    || t instanceof IllegalArgumentException || t instanceof ClosedChannelException) {
                return simple;
            }
            return simple + ":" + String.valueOf(t.getMessage()).replaceAll("\\s", "_");
        }
    }

    private static void report(String scenario, String outcome) {
        System.out.println("RESULT " + scenario + " " + outcome);
        System.out.flush();
    }
}
