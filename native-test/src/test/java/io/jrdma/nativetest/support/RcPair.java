package io.jrdma.nativetest.support;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Mtu;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.ibverbs.ThreadConfinement;

import java.io.IOException;

/**
 * Two queue pairs of one type on one device, connected to each other through the port (loopback through the
 * device, as two hosts would be), each with its own completion queue and a 64 KiB buffer.
 */
public final class RcPair implements AutoCloseable {
    public static final int BUFFER = 64 * 1024;

    public final ProtectionDomain pd;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair a;
    public final QueuePair b;
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;
    public final ConnectOptions options;
    public final int gidIndex;

    public RcPair(Context ctx, QpType type) throws IOException {
        this(ctx, type, ThreadConfinement.SHARED);
    }

    /** With queue pairs and completion queues of {@code confinement} (confined ones belong to this thread). */
    public RcPair(Context ctx, QpType type, ThreadConfinement confinement) throws IOException {
        pd = ctx.allocateProtectionDomain();
        cqA = ctx.completionQueue(64).confinement(confinement).create();
        cqB = ctx.completionQueue(64).confinement(confinement).create();
        a = pd.queuePair(type).completionQueue(cqA).capacity(32, 32).sge(4, 4).maxInlineData(64)
                .confinement(confinement).create();
        b = pd.queuePair(type).completionQueue(cqB).capacity(32, 32).sge(4, 4).maxInlineData(64)
                .confinement(confinement).create();
        Access[] all = {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC};
        mrA = pd.allocate(BUFFER, all);
        mrB = pd.allocate(BUFFER, all);
        gidIndex = DeviceSupport.gidIndex(ctx);
        Mtu mtu = ctx.queryPort(1).activeMtu();
        options = ConnectOptions.of(1, gidIndex, mtu).maxReadAtomic(4);
        connect();
    }

    /** RESET → RTS on both sides, each to the other. */
    public void connect() throws IOException {
        connect(a, b);
    }

    /** Connects {@code x} and {@code y} (queue pairs of this PD) to each other, as two hosts would. */
    public void connect(QueuePair x, QueuePair y) throws IOException {
        connect(x, y, gidIndex, options);
    }

    /** Connects {@code x} and {@code y} to each other through port 1 with {@code options}. */
    public static void connect(QueuePair x, QueuePair y, int gidIndex, ConnectOptions options) throws IOException {
        x.connect(y.endpoint(1, gidIndex, 0x100), 0x200, options);
        y.connect(x.endpoint(1, gidIndex, 0x200), 0x100, options);
    }

    @Override
    public void close() throws IOException {
        a.close();
        b.close();
        mrA.close();
        mrB.close();
        cqA.close();
        cqB.close();
        pd.close();
    }
}
