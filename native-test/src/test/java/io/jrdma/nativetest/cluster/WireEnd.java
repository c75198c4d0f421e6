package io.jrdma.nativetest.cluster;

import io.jrdma.ibverbs.Access;
import io.jrdma.ibverbs.CompletionQueue;
import io.jrdma.ibverbs.ConnectOptions;
import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Endpoint;
import io.jrdma.ibverbs.MemoryRegion;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.QueuePair;
import io.jrdma.nativetest.support.DeviceSupport;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/**
 * One side of a hand-connected queue pair between two nodes (no connection manager): device, PD, CQ, QP and a 4 KiB
 * buffer, with its {@link Endpoint} traded for the other side's over a TCP socket of the control network.
 */
final class WireEnd implements AutoCloseable {
    static final int QKEY = 0x11111111;
    static final int BUFFER = 4096;

    final Context ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion mr;
    final int gidIndex;
    final ConnectOptions options;

    WireEnd(QpType type) throws IOException {
        ctx = Context.openFirst();
        try {
            pd = ctx.allocateProtectionDomain();
            cq = ctx.createCompletionQueue(16);
            qp = pd.queuePair(type).completionQueue(cq).create();
            mr = pd.allocate(BUFFER, Access.LOCAL_WRITE);
            gidIndex = DeviceSupport.gidIndex(ctx);
            options = ConnectOptions.of(1, gidIndex, ctx.queryPort(1).activeMtu());
        } catch (IOException | RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    /** Sends this side's endpoint on {@code socket} and returns the other side's. */
    Endpoint trade(Socket socket) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.write(qp.endpoint(1, gidIndex, 0).toBytes());
        out.flush();
        return Endpoint.fromBytes(new DataInputStream(socket.getInputStream()).readNBytes(Endpoint.BYTES));
    }

    /** RESET to RTS: to {@code remote} with {@code connect} for RC; as a datagram queue pair for UD. */
    void ready(Endpoint remote, ConnectOptions connect) throws IOException {
        if (qp.type() == QpType.UD) {
            qp.toInitDatagram(1, QKEY);
            qp.toReadyToReceive(null, connect);
            qp.toReadyToSend(0, connect);
        } else {
            qp.connect(remote, 0, connect);
        }
    }

    @Override
    public void close() throws IOException {
        try (ctx; pd; cq; qp; mr) {
            // closed in reverse order
        }
    }
}
