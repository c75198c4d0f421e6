/** Raw jextract bindings for libibverbs and librdmacm; generated, never edited by hand. */
module io.jrdma.bindings {
    exports io.jrdma.bindings.ibverbs;
    exports io.jrdma.bindings.rdmacm;
}
