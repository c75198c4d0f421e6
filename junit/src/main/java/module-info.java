/** JUnit 5 support for tests that need a real RDMA device. */
module io.jrdma.junit {
    requires transitive io.jrdma.ibverbs;
    requires transitive org.junit.jupiter.api;
    exports io.jrdma.junit;
    opens io.jrdma.junit to org.junit.platform.commons;
}
