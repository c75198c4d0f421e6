package io.jrdma.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketSslEchoTest;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Netty's {@link SocketSslEchoTest} over the transport, in a selection of its combinations: 1 MiB echoed through TLS
 * both ways, checked byte by byte, in writes of random sizes. The suite has hundreds of combinations; the rows here put each engine (the JDK's and OpenSSL's) on each side, each renegotiation
 * (the suite renegotiates only between JDK engines) and every option (delegated tasks on either side, auto-read,
 * chunked writes, composite buffers) both on and off.
 */
class RdmaSocketSslEchoDeviceTest extends SocketSslEchoTest implements OverRdma {
    /**
     * The rows run, as the suite's: server engine, client engine ({@code J} the JDK's, {@code O} OpenSSL's), the
     * renegotiation, then delegated tasks on the server and on the client, auto-read, chunked writes, composite
     * buffers.
     */
    private static final List<String> ROWS = List.of(
            "J J NONE false false true false false",
            "J J SERVER_INITIATED true false false true false",
            "J J CLIENT_INITIATED false true true false true",
            "O O NONE true true false true true",
            "J O NONE false true true true false",
            "O J NONE true false false false true");

    /** The suite's combinations that {@link #ROWS} names, each found once. */
    public static Collection<Object[]> data() throws Exception {
        List<Object[]> rows = new ArrayList<>();
        List<String> missing = new ArrayList<>(ROWS);
        for (Object[] row : SocketSslEchoTest.data()) {
            if (missing.remove(key(row))) {
                rows.add(row);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Netty's SslEcho suite has no combination " + missing);
        }
        return rows;
    }

    private static String key(Object[] row) {
        String renegotiation = row[2].toString();
        int cipher = renegotiation.indexOf('(');
        StringBuilder key = new StringBuilder()
                .append(engine(row[0])).append(' ').append(engine(row[1])).append(' ')
                .append(cipher < 0 ? renegotiation : renegotiation.substring(0, cipher));
        Arrays.stream(row, 3, row.length).forEach(flag -> key.append(' ').append(flag));
        return key.toString();
    }

    private static String engine(Object context) {
        return context instanceof JdkSslContext ? "J" : "O";
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return RdmaPermutation.socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return RdmaPermutation.newSocketAddress();
    }

    /**
     * The suite's bound (30 s a row) is for a real CPU: in the VM the first row took 53 s (the JVM's TLS classes loaded
     * and compiled), the others 3 to 16 s.
     */
    @ParameterizedTest(name = "{index}: serverEngine = {0}, clientEngine = {1}, renegotiation = {2}, "
            + "serverUsesDelegatedTaskExecutor = {3}, clientUsesDelegatedTaskExecutor = {4}, autoRead = {5}, "
            + "useChunkedWriteHandler = {6}, useCompositeByteBuf = {7}")
    @MethodSource("data")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    @Override
    public void testSslEcho(SslContext serverCtx, SslContext clientCtx, Renegotiation renegotiation,
                            boolean serverUsesDelegatedTaskExecutor, boolean clientUsesDelegatedTaskExecutor,
                            boolean autoRead, boolean useChunkedWriteHandler, boolean useCompositeByteBuf,
                            TestInfo testInfo) throws Throwable {
        super.testSslEcho(serverCtx, clientCtx, renegotiation, serverUsesDelegatedTaskExecutor,
                clientUsesDelegatedTaskExecutor, autoRead, useChunkedWriteHandler, useCompositeByteBuf, testInfo);
    }
}
