/**
 * A {@link java.nio.channels.spi.SelectorProvider} whose socket channels run over librdmacm's rsockets for the
 * addresses its rules name, and over TCP for every other address; see {@link io.jrdma.nio.RdmaSelectorProvider}.
 *
 * <p>Run with {@code --enable-native-access=io.jrdma.bindings,io.jrdma.ibverbs,io.jrdma.nio} (or
 * {@code ALL-UNNAMED} on the class path).
 */
module io.jrdma.nio {
    requires io.jrdma.bindings;
    requires io.jrdma.ibverbs;
    exports io.jrdma.nio;
}
