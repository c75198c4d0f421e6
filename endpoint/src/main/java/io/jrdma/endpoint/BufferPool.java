package io.jrdma.endpoint;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.RdmaException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A worker's pool of registered buffers, in power-of-two size classes from 64 B to 16 MiB. Each class registers
 * its memory in chunks of at least 256 KiB when it runs short, and keeps given-back buffers for the next
 * {@link #allocate}: after warm-up, taking and giving back a buffer registers nothing and allocates nothing.
 * With {@link WorkerOptions#withHugePages}, chunks are 2 MiB huge pages (the kernel's reserved ones), each cut
 * into buffers to its last byte. Thread-safe; the buffers are the worker's protection domain's, so any of its
 * endpoints can use them, and are registered for local access only (register remote-access memory with the
 * worker's {@link Worker#protectionDomain()}).
 * <p>
 * When the worker closes, every chunk is deregistered, but a chunk's memory is freed only once all its buffers are
 * given back: a buffer still held (say, under a Netty buffer that a transport of another event loop writes through
 * its raw address) never points at freed memory, whatever order things close in.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=buffers}
 */
public final class BufferPool {
    static final int MIN_SHIFT = 6;
    static final int MAX_SHIFT = 24;
    /** The largest buffer a pool gives: 16 MiB. */
    public static final int MAX_BUFFER = 1 << MAX_SHIFT;
    private static final long MIN_CHUNK = 256 << 10;
    private static final long HUGE_PAGE = 2 << 20;

    private final ProtectionDomain pd;
    private final boolean hugePages;
    private final SizeClass[] classes = new SizeClass[MAX_SHIFT - MIN_SHIFT + 1];
    /** Each chunk is {@link LeasedMemory}, so that a buffer held past the close keeps its memory. */
    private final List<LeasedMemory> chunks = new ArrayList<>();
    private volatile boolean closed;

    /** One size class's free buffers, a stack under the class's own lock. */
    private static final class SizeClass {
        Buffer[] free = new Buffer[16];
        int count;
    }

    BufferPool(ProtectionDomain pd, boolean hugePages) {
        this.pd = pd;
        this.hugePages = hugePages;
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass();
        }
    }

    /**
     * Takes a buffer of at least {@code size} bytes.
     *
     * @param size the bytes needed, 1 to 16 MiB
     * @return the buffer, which the caller closes to give it back
     * @throws IllegalArgumentException if {@code size} is out of range
     * @throws IllegalStateException    if the pool's worker is closed
     * @throws RdmaException            if registering a new chunk fails (e.g. the locked-memory limit)
     * @throws UnsupportedOperationException if the pool takes huge pages and the kernel has none free for a new
     *                                       chunk (reserve them in {@code /proc/sys/vm/nr_hugepages})
     */
    public Buffer allocate(int size) throws RdmaException {
        if (size < 1 || size > MAX_BUFFER) {
            throw new IllegalArgumentException("a pooled buffer is 1 B to 16 MiB, not " + size);
        }
        int index = Math.max(MIN_SHIFT, 32 - Integer.numberOfLeadingZeros(size - 1)) - MIN_SHIFT;
        SizeClass c = classes[index];
        synchronized (c) {
            if (closed) {
                throw new IllegalStateException("the buffer pool is closed");
            }
            if (c.count == 0) {
                refill(c, index);
            }
            Buffer b = c.free[c.count - 1];
            if (!b.memory().hold()) {
                throw new IllegalStateException("the buffer pool is closed");
            }
            c.free[--c.count] = null;
            b.free = false;
            return b;
        }
    }

    /** Registers a chunk for the class and puts its buffers on the free stack; the caller holds the class's lock. */
    private void refill(SizeClass c, int index) throws RdmaException {
        int size = 1 << (index + MIN_SHIFT);
        long chunk = Math.max(size, MIN_CHUNK);
        // Huge pages come whole: a chunk of them is cut into buffers to its last byte.
        long bytes = hugePages ? (chunk + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : chunk;
        LeasedMemory registered;
        synchronized (chunks) {
            if (closed) {
                throw new IllegalStateException("the buffer pool is closed");
            }
            registered = LeasedMemory.register(pd, bytes, hugePages, Access.LOCAL_WRITE, Access.MW_BIND);
            chunks.add(registered);
        }
        int n = (int) (bytes / size);
        if (c.free.length < c.count + n) {
            c.free = Arrays.copyOf(c.free, Math.max(c.free.length * 2, c.count + n));
        }
        for (int i = n - 1; i >= 0; i--) {
            Buffer b = new Buffer(this, registered, (long) i * size, size, index);
            b.free = true;
            c.free[c.count++] = b;
        }
    }

    void giveBack(Buffer b) {
        SizeClass c = classes[b.sizeClass()];
        synchronized (c) {
            if (b.free) {
                throw new IllegalStateException(b + " was given back already");
            }
            b.free = true;
            b.memory().letGo();
            if (c.count == c.free.length) {
                c.free = Arrays.copyOf(c.free, c.free.length * 2);
            }
            c.free[c.count++] = b;
        }
    }

    /**
     * {@return the bytes the pool has registered}
     */
    public long registeredBytes() {
        synchronized (chunks) {
            long sum = 0;
            for (LeasedMemory m : chunks) {
                sum += m.region().length();
            }
            return sum;
        }
    }

    /**
     * Deregisters every chunk, whose memory is freed once its buffers are all back; called by the worker once no
     * operation can use them.
     */
    void close() throws RdmaException {
        synchronized (chunks) {
            closed = true;
            RdmaException first = null;
            for (LeasedMemory chunk : chunks) {
                try {
                    chunk.close();
                } catch (RdmaException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            chunks.clear();
            if (first != null) {
                throw first;
            }
        }
    }
}
