package io.jrdma.tool.pingpong;

import io.jrdma.ibverbs.Mtu;

import java.util.Locale;

/**
 * The options of {@code jrdma pingpong VARIANT}, those of rdma-core's {@code ibv_*_pingpong}, as
 * {@link PingPongCommand} checked them.
 *
 * @param variant      which example this is
 * @param port         TCP port of the handshake (-p)
 * @param device       device name (-d), or {@code null} for the first device
 * @param ibPort       device port (-i)
 * @param size         message size in bytes (-s)
 * @param mtu          path MTU (-m)
 * @param rxDepth      receives kept posted (-r)
 * @param iters        number of exchanges (-n)
 * @param serviceLevel service level (-l)
 * @param events       sleep on completion events instead of busy polling (-e)
 * @param gidIndex     local GID index (-g), or -1 for none
 * @param validate     the client marks, the server checks the first byte of every page (-c)
 * @param queuePairs   queue pairs sharing the receive queue (-q, srq only; 1 otherwise)
 * @param server       the server to connect to, or {@code null} to be the server
 */
record PingPongOptions(Variant variant, int port, String device, int ibPort, int size, Mtu mtu, int rxDepth,
                       int iters, int serviceLevel, boolean events, int gidIndex, boolean validate, int queuePairs,
                       String server) {

    /** The four examples, with the default message size of each (that of rdma-core 44). */
    enum Variant {
        RC(4096),
        UC(4096),
        UD(1024),
        SRQ(4096);

        private final int defaultSize;

        Variant(int defaultSize) {
            this.defaultSize = defaultSize;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        int defaultSize() {
            return defaultSize;
        }
    }

    /** srq_pingpong exchanges a fixed table of this many destinations; -q must stay below it. */
    static final int MAX_QP = 256;
}
