package io.jrdma.nio.snippets;

import io.jrdma.nio.RdmaSelectorProvider;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Using the provider without making it the JVM's default. */
final class ProviderSnippets {

    void direct() throws IOException {
        // @start region="direct"
        RdmaSelectorProvider provider = RdmaSelectorProvider.withRules("rdma connect 10.0.2.0/24 *", false);
        try (SocketChannel channel = provider.openSocketChannel()) {
            channel.connect(new InetSocketAddress("10.0.2.15", 7000));   // over RDMA: the rule matches
            channel.write(ByteBuffer.wrap("hello".getBytes()));
        }
        // @end
    }
}
