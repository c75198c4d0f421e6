package io.jrdma.nativetest.cluster;

import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.QpType;
import io.jrdma.ibverbs.ReceiveWorkRequest;
import io.jrdma.ibverbs.WcStatus;
import io.jrdma.ibverbs.WorkCompletions;
import io.jrdma.nativetest.support.DeviceSupport;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * The receiving {@link WireEnd} of a cross-node test: trades endpoints with the test over TCP on PORT of this node's
 * control address, brings its queue pair up, posts one receive, says so (one byte), and reports the message that
 * arrives as a {@link StreamResult} (a UD message without its GRH). Arguments: rc|ud PORT.
 */
final class WireReceiverTask implements NodeTask {
    @Override
    public String run(List<String> args) throws Exception {
        QpType type = QpType.valueOf(args.get(0).toUpperCase(Locale.ROOT));
        int node = Integer.parseInt(System.getenv("JRDMA_NODE"));
        String control = System.getenv("JRDMA_CONTROL_ADDRESSES").split(" ")[node - 1];
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(control, Integer.parseInt(args.get(1))));
            server.setSoTimeout(60_000);
            try (Socket socket = server.accept(); WireEnd end = new WireEnd(type)) {
                end.ready(end.trade(socket), end.options);
                end.qp.postReceive(new ReceiveWorkRequest(1).id(1).add(end.mr, 0, WireEnd.BUFFER));
                socket.getOutputStream().write(1);
                WorkCompletions wc = DeviceSupport.awaitCompletion(end.cq);
                if (wc.status(0) != WcStatus.SUCCESS) {
                    throw new AssertionError("the receive completed with " + wc.status(0));
                }
                int skip = type == QpType.UD ? AddressHandle.GRH_BYTES : 0;
                byte[] message = end.mr.segment().asSlice(skip, wc.byteLength(0) - skip).toArray(ValueLayout.JAVA_BYTE);
                CRC32 crc = new CRC32();
                crc.update(message);
                return StreamResult.format(message.length, crc.getValue());
            }
        }
    }
}
