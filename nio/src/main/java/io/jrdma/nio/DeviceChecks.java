package io.jrdma.nio;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The answers of {@link RdmaDevices}, kept for {@link #TTL} per address and operation. A check resolves an address
 * and a route with the connection manager, which takes time even when it succeeds (up to two timeouts when it
 * fails), and a selector's thread makes it in {@code connect}: so each address is asked about once per TTL, and
 * threads that need the same answer at once wait for one check.
 */
final class DeviceChecks {
    /** How long an answer is kept: a device or route that appears or goes is noticed after at most this. */
    static final Duration TTL = Duration.ofSeconds(30);

    private final Asker asker;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Key, Answer> answers = new ConcurrentHashMap<>();

    /** Why no RDMA device binds ({@code bind}) or routes to {@code address}, or null if one does. */
    interface Asker {
        String problem(boolean bind, InetAddress address);
    }

    private record Key(boolean bind, InetAddress address) {
    }

    private record Answer(CompletableFuture<String> problem, long expires) {
    }

    /** Checks that ask the connection manager. */
    DeviceChecks() {
        this((bind, address) -> bind ? RdmaDevices.bindProblem(address) : RdmaDevices.routeProblem(address),
                System::nanoTime);
    }

    DeviceChecks(Asker asker, LongSupplier clock) {
        this.asker = asker;
        this.clock = clock;
    }

    /** {@link Asker#problem}, asked now or answered from an answer younger than {@link #TTL}. */
    String problem(boolean bind, InetAddress address) {
        long now = clock.getAsLong();
        CompletableFuture<String> mine = new CompletableFuture<>();
        Answer answer = answers.compute(new Key(bind, address), (key, old) ->
                old != null && now - old.expires() < 0 ? old : new Answer(mine, now + TTL.toNanos()));
        if (answer.problem() == mine) {
            try {
                mine.complete(asker.problem(bind, address));
            } catch (RuntimeException | Error e) {
                mine.completeExceptionally(e);
                answers.remove(new Key(bind, address), answer);
                throw e;
            }
        }
        return answer.problem().join();
    }
}
