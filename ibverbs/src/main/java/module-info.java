/**
 * The idiomatic verbs API: devices, contexts and the verbs objects hanging off them.
 *
 * <p>Run with {@code --enable-native-access=io.jrdma.bindings,io.jrdma.ibverbs,io.jrdma.rdmacm} (or
 * {@code ALL-UNNAMED} on the class path).
 */
// io.jrdma.rdmacm, io.jrdma.nio and io.jrdma.endpoint, to which it exports its internal package, are built after it.
@SuppressWarnings("module")
module io.jrdma.ibverbs {
    requires io.jrdma.bindings;
    exports io.jrdma.ibverbs;
    // Shared plumbing (errno capture, C enum lookup) for jrdma's own modules only.
    exports io.jrdma.ibverbs.internal to io.jrdma.rdmacm, io.jrdma.nio, io.jrdma.endpoint;
}
