package io.jrdma.nio;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;

/**
 * What a JVM without librdmacm sees of the provider: {@link NioWithoutRdmaCoreDeviceTest} runs it in a child JVM
 * whose librdmacm and libibverbs files cannot be loaded. It prints whether RDMA is available and why not, what an
 * {@code rdma} rule's bind says, and then echoes over TCP as {@link UnchangedEchoApp} does.
 */
final class TcpOnlyApp {
    private TcpOnlyApp() {
    }

    /**
     * Prints the availability, tries an RDMA bind and echoes over TCP on {@code args[0]}.
     *
     * @param args the address to bind the servers to
     * @throws Exception if an echo failed
     */
    public static void main(String[] args) throws Exception {
        System.out.println("available " + RdmaSelectorProvider.isAvailable());
        System.out.println("cause " + RdmaSelectorProvider.unavailabilityCause());
        RdmaSelectorProvider rdma = RdmaSelectorProvider.withRules("rdma bind " + args[0] + " *", false);
        try (ServerSocketChannel server = rdma.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(args[0], 0));
            System.out.println("bound over RDMA " + server);
        } catch (BindException e) {
            System.out.println("refused " + e.getMessage());
        }
        UnchangedEchoApp.main(args);
    }
}
