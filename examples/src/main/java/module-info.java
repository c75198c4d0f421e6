/** The jrdma command-line tool and examples. */
module io.jrdma.examples {
    requires io.jrdma.ibverbs;
    requires io.jrdma.rdmacm;
    exports io.jrdma.examples;
}
