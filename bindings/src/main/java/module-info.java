/** Raw jextract bindings for libibverbs, librdmacm and its rsockets; generated, never edited by hand. */
module io.jrdma.bindings {
    exports io.jrdma.bindings.ibverbs;
    exports io.jrdma.bindings.rdmacm;
    exports io.jrdma.bindings.rsocket;
}
