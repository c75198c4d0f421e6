package io.jrdma.nio;

import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;

/**
 * A process whose first RDMA call is a connect: {@link NioConnectServiceDeviceTest} runs it in a child JVM, so that
 * the provider makes its connection service room (or not) for this connect and nothing before it.
 */
final class FirstConnectApp {
    private FirstConnectApp() {
    }

    /**
     * Connects over RDMA to {@code args[0]}, port {@code args[1]}, and closes the channel.
     *
     * @param args the server's address and port
     * @throws Exception if the connect failed
     */
    public static void main(String[] args) throws Exception {
        RdmaSelectorProvider provider = DeviceSupport.rdmaProvider(args[0]);
        try (SocketChannel client = provider.openSocketChannel()) {
            client.connect(new InetSocketAddress(args[0], Integer.parseInt(args[1])));
            System.out.println("connected " + client);
        }
    }
}
