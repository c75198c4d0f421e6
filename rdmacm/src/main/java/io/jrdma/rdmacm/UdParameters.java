package io.jrdma.rdmacm;

import io.jrdma.bindings.rdmacm.ibv_ah_attr;
import io.jrdma.ibverbs.AddressHandle;
import io.jrdma.ibverbs.ProtectionDomain;
import io.jrdma.ibverbs.RdmaException;
import io.jrdma.ibverbs.internal.VerbsBridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Where to send datagrams, as a UD connection-manager event says ({@code struct rdma_ud_param}): the remote queue
 * pair number and Q_Key, and the address vector to build an address handle from. For a multicast join the queue pair
 * number is {@code 0xFFFFFF}.
 *
 * {@snippet class=io.jrdma.rdmacm.snippets.CmIdSnippets region=datagram}
 *
 * @param qpNumber      remote queue pair number
 * @param qkey          the Q_Key datagrams to it must carry
 * @param privateData   what the peer's application sent along
 * @param addressVector the native {@code struct ibv_ah_attr} of the path to the peer or group
 */
public record UdParameters(int qpNumber, int qkey, byte[] privateData, byte[] addressVector) {
    /**
     * Checks the address vector's size and copies the arrays.
     *
     * @throws IllegalArgumentException if {@code addressVector} is not the size of {@code struct ibv_ah_attr}
     */
    public UdParameters {
        if (addressVector.length != ibv_ah_attr.sizeof()) {
            throw new IllegalArgumentException("an address vector (struct ibv_ah_attr) is " + ibv_ah_attr.sizeof()
                    + " bytes, not " + addressVector.length);
        }
        privateData = privateData.clone();
        addressVector = addressVector.clone();
    }

    /**
     * What the peer's application sent along.
     *
     * @return a copy
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The native {@code struct ibv_ah_attr} bytes.
     *
     * @return a copy
     */
    @Override
    public byte[] addressVector() {
        return addressVector.clone();
    }

    /**
     * An address handle for this destination in {@code pd}, which must be on the id's device.
     *
     * @param pd a protection domain of the id's context ({@link CmId#context()})
     * @return the new address handle, a child of {@code pd}
     * @throws RdmaException if {@code ibv_create_ah} fails
     */
    public AddressHandle createAddressHandle(ProtectionDomain pd) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = ibv_ah_attr.allocate(arena);
            MemorySegment.copy(addressVector, 0, attr, ValueLayout.JAVA_BYTE, 0, addressVector.length);
            return VerbsBridge.hooks().createAddressHandle(pd, attr);
        }
    }
}
