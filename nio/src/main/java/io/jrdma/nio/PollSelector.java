package io.jrdma.nio;

import io.jrdma.bindings.rsocket.pollfd;
import io.jrdma.ibverbs.internal.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A selector over {@code rpoll}, which takes rsockets and kernel sockets in one call, so RDMA and TCP channels share
 * it; a select that polls no rsocket uses the kernel's {@code poll}, so that TCP alone never needs librdmacm. Each select polls the registered channels' sockets and an eventfd that {@link #wakeup} writes. A select with
 * a timeout waits without one (see {@link Transport#poll} for why) and a timer wakes it up when the time is over. A key
 * registered or changed while a select waits counts from the next select, as with the JDK's selectors.
 */
final class PollSelector extends AbstractSelector {
    private static final MethodHandle EVENTFD = Errno.capturing(Libc.LOOKUP.findOrThrow("eventfd"), Libc.INT_INT_INT);
    private static final MethodHandle EVENTFD_READ = Libc.downcall(Libc.LOOKUP.findOrThrow("eventfd_read"),
            Libc.EVENTFD_READ);
    private static final MethodHandle EVENTFD_WRITE = Libc.downcall(Libc.LOOKUP.findOrThrow("eventfd_write"),
            Libc.EVENTFD_WRITE);
    private final Set<PollSelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final Set<SelectionKey> selected = new HashSet<>();
    private final Set<SelectionKey> publicSelected = new UngrowableSet(selected);
    private final int wakeupFd;
    private final Object selectLock = new Object();
    /** Guards the eventfd against a wakeup that writes to it while the selector closes it. */
    private final Object wakeupLock = new Object();
    private boolean wakeupClosed;

    PollSelector(RdmaSelectorProvider provider) throws IOException {
        super(provider);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Errno.allocateState(arena);
            int fd = (int) EVENTFD.invokeExact(state, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
            if (fd < 0) {
                throw new IOException("eventfd: " + Errno.name(Errno.read(state)));
            }
            wakeupFd = fd;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel channel, int ops, Object attachment) {
        if (!(channel instanceof Pollable)) {
            throw new IllegalSelectorException();
        }
        PollSelectionKey key = new PollSelectionKey(channel, this);
        key.attach(attachment);
        key.interestOps(ops);
        keys.add(key);
        return key;
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return publicSelected;
    }

    @Override
    public int selectNow() throws IOException {
        return doSelect(0);
    }

    @Override
    public int select(long timeout) throws IOException {
        if (timeout < 0) {
            throw new IllegalArgumentException("negative timeout " + timeout);
        }
        return doSelect(timeout == 0 ? -1 : timeout);
    }

    @Override
    public int select() throws IOException {
        return doSelect(-1);
    }

    @Override
    public Selector wakeup() {
        synchronized (wakeupLock) {
            if (!wakeupClosed) {
                try {
                    int rc = (int) EVENTFD_WRITE.invokeExact(wakeupFd, 1L);
                } catch (Throwable t) {
                    throw new AssertionError(t);
                }
            }
        }
        return this;
    }

    /** One select: {@code timeoutMillis} -1 waits until something is ready, 0 not at all. */
    private int doSelect(long timeoutMillis) throws IOException {
        synchronized (selectLock) {
            ensureOpen();
            deregisterCancelled();
            // The keys as they are now: a key registered during this select counts from the next, and the array
            // fits these.
            PollSelectionKey[] registered = keys.toArray(PollSelectionKey[]::new);
            List<PollSelectionKey> polled = new ArrayList<>(registered.length);
            List<NativeSocket> sockets = new ArrayList<>(registered.length);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment fds = pollfd.allocateArray(registered.length + 1L, arena);
                entry(fds, 0, wakeupFd, Libc.POLLIN);
                Transport pollWith = Transport.TCP;
                try {
                    for (PollSelectionKey key : registered) {
                        int events = key.isValid() ? key.pollable().pollEvents(key.interest()) : 0;
                        NativeSocket socket = key.pollable().nativeSocket();
                        if (events != 0 && socket.acquire()) {
                            // Listed at once (the list has room: no allocation can fail), so the finally gives it back.
                            sockets.add(socket);
                            entry(fds, polled.size() + 1, socket.fd(), events);
                            polled.add(key);
                            if (socket.transport().isRdma()) {
                                pollWith = socket.transport();
                            }
                        }
                    }
                    poll(pollWith, fds, polled.size() + 1, timeoutMillis, arena);
                } finally {
                    sockets.forEach(NativeSocket::release);
                }
                if (pollfd.revents(pollfd.asSlice(fds, 0)) != 0) {
                    try {
                        int rc = (int) EVENTFD_READ.invokeExact(wakeupFd, arena.allocate(ValueLayout.JAVA_LONG));
                    } catch (Throwable t) {
                        throw new AssertionError(t);
                    }
                }
                deregisterCancelled();
                return updateSelected(fds, polled);
            }
        }
    }

    /**
     * {@code transport}'s poll of the first {@code count} entries of {@code fds}, for {@code timeoutMillis} as select
     * has it.
     */
    private void poll(Transport transport, MemorySegment fds, int count, long timeoutMillis, Arena arena)
            throws IOException {
        boolean mayBlock = timeoutMillis != 0;
        ScheduledFuture<?> timer = timeoutMillis > 0
                ? ProviderTimer.TIMER.schedule(this::wakeup, timeoutMillis, TimeUnit.MILLISECONDS) : null;
        try {
            if (mayBlock) {
                begin();
            }
            transport.poll(fds, count, mayBlock, Errno.allocateState(arena));
        } finally {
            if (mayBlock) {
                end();
            }
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }

    private static void entry(MemorySegment fds, int index, int fd, int events) {
        MemorySegment entry = pollfd.asSlice(fds, index);
        pollfd.fd(entry, fd);
        pollfd.events(entry, (short) events);
        pollfd.revents(entry, (short) 0);
    }

    /** Adds the keys that became ready to the selected set, or adds to their ready set; how many changed. */
    private int updateSelected(MemorySegment fds, List<PollSelectionKey> polled) {
        int updated = 0;
        for (int i = 0; i < polled.size(); i++) {
            PollSelectionKey key = polled.get(i);
            int revents = pollfd.revents(pollfd.asSlice(fds, i + 1));
            if (revents == 0 || !key.isValid()) {
                continue;
            }
            int ops = key.pollable().readyOps(revents, key.interest());
            if (ops == 0) {
                continue;
            }
            if (selected.contains(key)) {
                if ((key.readyOps() | ops) != key.readyOps()) {
                    key.readyOps(key.readyOps() | ops);
                    updated++;
                }
            } else {
                key.readyOps(ops);
                selected.add(key);
                updated++;
            }
        }
        return updated;
    }

    private void deregisterCancelled() {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            for (Iterator<SelectionKey> it = cancelled.iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                keys.remove(key);
                selected.remove(key);
                deregister((PollSelectionKey) key);
            }
        }
    }

    @Override
    protected void implCloseSelector() throws IOException {
        wakeup();
        synchronized (selectLock) {
            for (PollSelectionKey key : keys) {
                key.cancel();
            }
            deregisterCancelled();
        }
        synchronized (wakeupLock) {
            wakeupClosed = true;
            Transport.TCP.close(wakeupFd);
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }

    /** The selected-key set: keys may be removed, never added (the selector's contract). */
    private static final class UngrowableSet extends AbstractSet<SelectionKey> {
        private final Set<SelectionKey> set;

        UngrowableSet(Set<SelectionKey> set) {
            this.set = set;
        }

        @Override
        public Iterator<SelectionKey> iterator() {
            return set.iterator();
        }

        @Override
        public int size() {
            return set.size();
        }

        @Override
        public boolean contains(Object o) {
            return set.contains(o);
        }

        @Override
        public boolean remove(Object o) {
            return set.remove(o);
        }

        @Override
        public void clear() {
            set.clear();
        }
    }
}
