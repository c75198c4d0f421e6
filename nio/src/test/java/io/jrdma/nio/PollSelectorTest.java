package io.jrdma.nio;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The selector gives back every socket it takes for a poll, whatever ends the select, and polls no more sockets than
 * its array has room for while keys are registered during selects. Needs librdmacm installed, no RDMA device.
 */
class PollSelectorTest {
    private static final int CHANNELS = 300;
    private final RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("", false);

    @Test
    void aSelectThatFailsGivesBackTheSocketsItTook() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        List<FailingChannel> channels = new ArrayList<>();
        List<AtomicBoolean> closed = new ArrayList<>();
        try (Selector selector = provider.openSelector()) {
            for (int i = 0; i < 2; i++) {
                int family = Libc.AF_INET;
                FailingChannel channel = new FailingChannel(provider,
                        new NativeSocket(Transport.TCP, Transport.TCP.socket(family), family), calls);
                channels.add(channel);
                closed.add(descriptorClosed(channel.socket));
                channel.configureBlocking(false).register(selector, SelectionKey.OP_READ);
            }
            // The first key's socket is taken for the poll when the second key's events fail.
            assertThrows(IllegalStateException.class, selector::selectNow);
        }
        for (int i = 0; i < channels.size(); i++) {
            channels.get(i).socket.close();
            assertTrue(closed.get(i).get(), "socket " + i + " is still in use: its descriptor stays open");
        }
    }

    @Test
    void keysRegisteredDuringSelectsWaitForTheNext() throws Exception {
        List<SocketChannel> channels = new ArrayList<>();
        List<AtomicBoolean> closed = new ArrayList<>();
        try (Selector selector = provider.openSelector()) {
            for (int i = 0; i < CHANNELS; i++) {
                SocketChannel channel = provider.openSocketChannel();
                channels.add(channel);
                closed.add(descriptorClosed(((SocketChannelImpl) channel).nativeSocket()));
                channel.configureBlocking(false);
            }
            CompletableFuture<Void> registering = CompletableFuture.runAsync(() -> {
                for (SocketChannel channel : channels) {
                    try {
                        channel.register(selector, SelectionKey.OP_CONNECT);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }
            });
            while (!registering.isDone()) {
                selector.selectNow();
            }
            registering.get();
            selector.selectNow();
            assertEquals(CHANNELS, selector.keys().size());
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
        for (int i = 0; i < CHANNELS; i++) {
            assertTrue(closed.get(i).get(), "channel " + i + "'s socket is still in use: its descriptor stays open");
        }
    }

    /** Set when {@code socket}'s descriptor is closed: once it is closed and no use of it is left. */
    private static AtomicBoolean descriptorClosed(NativeSocket socket) {
        AtomicBoolean closed = new AtomicBoolean();
        assertTrue(socket.acquire());
        socket.beforeClose(() -> closed.set(true));
        socket.release();
        return closed;
    }

    /** A channel over a socket of the test, whose {@link #pollEvents} fails at the second call on any of them. */
    private static final class FailingChannel extends AbstractSelectableChannel implements Pollable {
        private final NativeSocket socket;
        private final AtomicInteger calls;

        FailingChannel(SelectorProvider provider, NativeSocket socket, AtomicInteger calls) {
            super(provider);
            this.socket = socket;
            this.calls = calls;
        }

        @Override
        public NativeSocket nativeSocket() {
            return socket;
        }

        @Override
        public int pollEvents(int ops) {
            if (calls.incrementAndGet() == 2) {
                throw new IllegalStateException("the second poll events of the test");
            }
            return Libc.POLLIN;
        }

        @Override
        public int readyOps(int revents, int interestOps) {
            return 0;
        }

        @Override
        public int validOps() {
            return SelectionKey.OP_READ;
        }

        @Override
        protected void implCloseSelectableChannel() {
            // The test closes the socket itself, to see whether its descriptor is closed then.
        }

        @Override
        protected void implConfigureBlocking(boolean block) {
            // A test channel: nothing to configure.
        }
    }
}
