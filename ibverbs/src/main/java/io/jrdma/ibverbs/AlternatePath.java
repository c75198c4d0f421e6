package io.jrdma.ibverbs;

import java.util.Objects;

/**
 * The alternate path of a connected queue pair ({@link QpAttribute#ALT_PATH}: {@code alt_ah_attr},
 * {@code alt_pkey_index}, {@code alt_port_num}, {@code alt_timeout}), which it fails over to when migration is
 * {@link MigrationState#ARMED}.
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.QueuePairSnippets region=qp-modify}
 *
 * @param addressVector the path
 * @param pkeyIndex     its P_Key index, 0..65535
 * @param port          its local port, 1..255 (0 only in what a query reports of a path never set)
 * @param timeout       its local ACK timeout code, 0..31
 */
public record AlternatePath(AddressVector addressVector, int pkeyIndex, int port, int timeout) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if a field is out of range
     * @throws NullPointerException     if {@code addressVector} is null
     */
    public AlternatePath {
        Objects.requireNonNull(addressVector, "addressVector");
        ConnectOptions.range("pkeyIndex", pkeyIndex, 0, 0xffff);
        ConnectOptions.range("port", port, 0, 255);
        ConnectOptions.range("timeout", timeout, 0, 31);
    }
}
