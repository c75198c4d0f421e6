/** The idiomatic connection-manager API over librdmacm. */
module io.jrdma.rdmacm {
    requires transitive io.jrdma.ibverbs;
    requires io.jrdma.bindings;
    exports io.jrdma.rdmacm;
}
