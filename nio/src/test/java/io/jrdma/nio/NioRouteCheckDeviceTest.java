package io.jrdma.nio;

import io.jrdma.ibverbs.Device;
import io.jrdma.junit.RdmaDeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connect's device check (the connection manager resolving the address, which waits for its timeout when no
 * neighbour answers) holds none of the channel's locks: while a thread is provably in it, another thread reads the
 * channel's addresses, gets its socket adapter, selects with its key and closes it, and the check is still running
 * when all that has returned. The connect then ends with {@link AsynchronousCloseException}. A hang (the old
 * behaviour, each of those waiting for the check) fails at the timeout rather than holding the tier up.
 */
@RdmaDeviceTest
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NioRouteCheckDeviceTest {
    private static final int PORT = 7471;

    @Test
    void aCloseAndTheKeysWorkDoNotWaitForARouteCheck(Device device) throws Exception {
        String silent = silentNeighbour(DeviceSupport.address(device));
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma connect " + silent + " *", false);
        try (Selector selector = provider.openSelector(); SocketChannel channel = provider.openSocketChannel()) {
            channel.configureBlocking(false);
            SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT);
            CompletableFuture<Boolean> connect = new CompletableFuture<>();
            Thread connecting = Thread.ofPlatform().name("connecting").start(() -> {
                try {
                    connect.complete(channel.connect(new InetSocketAddress(silent, PORT)));
                } catch (Throwable t) {
                    connect.completeExceptionally(t);
                }
            });
            while (!inRouteCheck(connecting)) {
                assertFalse(connect.isDone(), "the connect ended before it was seen in its route check");
                Thread.sleep(1);
            }
            assertNull(channel.getRemoteAddress());
            assertNull(channel.getLocalAddress());
            assertNotNull(channel.socket());
            assertFalse(channel.isConnectionPending());
            assertEquals(0, selector.selectNow());
            key.interestOps(SelectionKey.OP_CONNECT | SelectionKey.OP_READ);
            channel.close();
            assertFalse(key.isValid());
            assertEquals(0, selector.selectNow());
            assertTrue(inRouteCheck(connecting), "the route check still runs after all that returned");
            ExecutionException e = assertThrows(ExecutionException.class, connect::get);
            assertInstanceOf(AsynchronousCloseException.class, e.getCause());
            connecting.join();
        }
    }

    /** Whether {@code thread} is in the connection manager's check of a route ({@link RdmaDevices}). */
    private static boolean inRouteCheck(Thread thread) {
        return Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().equals(RdmaDevices.class.getName())
                && f.getMethodName().equals("routeProblem"));
    }

    /**
     * An address of the device's subnet next to {@code ip} that no host answers: the test VM's network holds only
     * itself, so its address resolution waits for the check's timeout.
     */
    private static String silentNeighbour(String ip) throws Exception {
        byte[] bytes = InetAddress.getByName(ip).getAddress();
        bytes[bytes.length - 1] ^= 1;
        return InetAddress.getByAddress(bytes).getHostAddress();
    }
}
