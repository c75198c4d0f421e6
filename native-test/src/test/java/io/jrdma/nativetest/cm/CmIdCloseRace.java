package io.jrdma.nativetest.cm;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.QpState;
import io.jrdma.nativetest.support.DeviceSupport;
import io.jrdma.rdmacm.CmEventType;
import io.jrdma.rdmacm.CmId;
import io.jrdma.rdmacm.EventChannel;
import io.jrdma.rdmacm.PortSpace;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Run in a child JVM by {@link CmIdCloseRaceDeviceTest}: closes connection-manager ids while another thread uses
 * them, and while another thread waits for their events. Prints {@code RESULT <scenario> <outcome>} for each, then
 * {@code ALL DONE}; a use of a freed id would crash it instead (the test runs it with freed memory overwritten).
 * Arguments: the device name, the number of rounds of the race.
 */
final class CmIdCloseRace {
    private static final Duration T = Duration.ofSeconds(30);
    private static final long PAUSE_NANOS = 100_000;
    /** When a run that has not ended prints where its threads are and ends, so that a hang shows where it is. */
    private static final Duration HANG = Duration.ofMinutes(5);

    private CmIdCloseRace() {
    }

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(CmIdCloseRace::reportHang);
        int rounds = Integer.parseInt(args[1]);
        try (Context ctx = Context.open(args[0]); EventChannel events = EventChannel.create()) {
            // Nothing listens there: resolving the address and route is all the ids need.
            InetSocketAddress peer = new InetSocketAddress(DeviceSupport.ipAddress(ctx), 18747);
            String outcome = "IllegalStateException";
            for (int i = 0; i < rounds && outcome.equals("IllegalStateException"); i++) {
                outcome = callsRacingClose(events, peer);
            }
            report("calls-racing-close", outcome);
            report("await-on-closed-id", awaitOnClosedId(events));
        }
        System.out.println("ALL DONE");
    }

    /** One id, resolved, used by another thread until this one's close ends its calls: how they ended. */
    private static String callsRacingClose(EventChannel events, InetSocketAddress peer) throws Exception {
        CmId id = CmId.create(events, PortSpace.TCP);
        id.resolve(peer, T);
        AtomicReference<String> ended = new AtomicReference<>();
        CountDownLatch using = new CountDownLatch(1);
        Thread user = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (; ; using.countDown()) {
                    // No pause between rounds: a close must end them even so (it refuses calls once it waits; before,
                    // a thread that never paused kept the id counted in for minutes on a one-thread emulated machine).
                    id.paths();
                    id.localAddress();
                    id.peerAddress();
                    id.portNumber();
                    id.context();
                    id.setTypeOfService(0);
                    id.queuePairAttributes(QpState.INIT);
                }
            } catch (IllegalStateException closed) {
                ended.set("IllegalStateException");
            } catch (Throwable t) {
                ended.set(t.toString());
            }
        });
        using.await();
        id.close();
        user.join();
        return ended.get();
    }

    /** A thread waits for an id's event; the id is closed meanwhile: how the wait ended. */
    private static String awaitOnClosedId(EventChannel events) throws Exception {
        CmId id = CmId.create(events, PortSpace.TCP);
        AtomicReference<String> ended = new AtomicReference<>("still waiting");
        // A daemon: a wait that never ends must not keep this JVM alive.
        Thread waiter = Thread.ofPlatform().daemon().start(() -> {
            try {
                ended.set("an event: " + id.await(null, CmEventType.ESTABLISHED));
            } catch (IllegalStateException closed) {
                ended.set("IllegalStateException");
            } catch (Throwable t) {
                ended.set(t.toString());
            }
        });
        // Close once the waiter is in the wait (its sleeps are native calls, so its state does not tell).
        while (waiter.isAlive() && Arrays.stream(waiter.getStackTrace())
                .noneMatch(f -> f.getClassName().equals(EventChannel.class.getName()))) {
            LockSupport.parkNanos(PAUSE_NANOS);
        }
        id.close();
        waiter.join(T);
        return ended.get();
    }

    private static void reportHang() {
        try {
            Thread.sleep(HANG);
        } catch (InterruptedException e) {
            return;
        }
        StringBuilder dump = new StringBuilder("HUNG after " + HANG + ":\n");
        Thread.getAllStackTraces().forEach((t, stack) -> {
            dump.append(t).append(' ').append(t.getState()).append('\n');
            for (StackTraceElement e : stack) {
                dump.append("    at ").append(e).append('\n');
            }
        });
        System.out.println(dump);
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }

    private static void report(String scenario, String outcome) {
        System.out.println("RESULT " + scenario + " " + outcome.replace('\n', ' '));
        System.out.flush();
    }
}
