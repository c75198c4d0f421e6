package io.jrdma.endpoint;

import io.jrdma.ibverbs.MemoryRegion;

import java.util.Arrays;

/**
 * Pieces of registered memory sent as one message, in the order they were added (a gather list): the device reads
 * each piece from where it lies, so a header and a payload, or several pooled buffers, go out together with no copy.
 * The peer receives one message of {@link #length()} bytes, as if they had been contiguous; a list longer than the
 * peer's receive buffers goes by rendezvous, written with the same pieces.
 *
 * <p>Each piece is checked as it is added. {@link Endpoint#send(GatherList)} and
 * {@link Endpoint#trySend(GatherList, OperationHandler, Object)} copy the list before they return, so it may be
 * cleared and filled again at once; the memory itself, as for every send, must stay as it is until the send completes.
 * A list is not safe for use by several threads at once.
 *
 * {@snippet class=io.jrdma.endpoint.snippets.EndpointSnippets region=gather}
 */
public final class GatherList {
    /**
     * The most pieces in one list. A worker's endpoints send lists of up to {@link Worker#maxGatherPieces()} pieces
     * (4 by default, {@link WorkerOptions#withGatherPieces} for more); a longer one is refused before it is posted.
     */
    public static final int MAX_PIECES = 16;

    final MemoryRegion[] regions;
    final long[] offsets;
    final int[] lengths;
    int size;
    int length;

    /** An empty list with room for {@link #MAX_PIECES} pieces. */
    public GatherList() {
        this(MAX_PIECES);
    }

    private GatherList(int capacity) {
        regions = new MemoryRegion[capacity];
        offsets = new long[capacity];
        lengths = new int[capacity];
    }

    /**
     * Appends {@code length} bytes of {@code region} from {@code offset}.
     *
     * @param region registered memory, of the protection domain of the worker that will send the list
     * @param offset where the piece starts in {@code region}
     * @param length its length, at least 1 byte
     * @return this list
     * @throws IllegalArgumentException if the range is outside the region, the length is 0, the list is full, or the
     *                                  message would be longer than a send takes (16 MiB)
     */
    public GatherList add(MemoryRegion region, long offset, int length) {
        if (region == null) {
            throw new NullPointerException("region");
        }
        if (length <= 0 || offset < 0 || offset > region.length() - length) {
            throw new IllegalArgumentException("[" + offset + ", +" + length + ") is not a piece of " + region);
        }
        if (size == regions.length) {
            throw new IllegalArgumentException("a gather list holds at most " + regions.length + " pieces");
        }
        if ((long) this.length + length > Rendezvous.MAX_MESSAGE) {
            throw new IllegalArgumentException("a message of " + ((long) this.length + length) + " bytes; at most "
                    + Rendezvous.MAX_MESSAGE + " go by rendezvous");
        }
        regions[size] = region;
        offsets[size] = offset;
        lengths[size] = length;
        size++;
        this.length += length;
        return this;
    }

    /**
     * Empties the list.
     *
     * @return this list
     */
    public GatherList clear() {
        Arrays.fill(regions, 0, size, null);
        size = 0;
        length = 0;
        return this;
    }

    /** {@return how many pieces the list holds} */
    public int size() {
        return size;
    }

    /** {@return the message's length: the pieces' lengths added up} */
    public int length() {
        return length;
    }

    /** A copy that the endpoint keeps until the send is posted and completes; nobody changes it. */
    GatherList copy() {
        GatherList c = new GatherList(size);
        System.arraycopy(regions, 0, c.regions, 0, size);
        System.arraycopy(offsets, 0, c.offsets, 0, size);
        System.arraycopy(lengths, 0, c.lengths, 0, size);
        c.size = size;
        c.length = length;
        return c;
    }

    boolean uses(MemoryRegion region) {
        for (int i = 0; i < size; i++) {
            if (regions[i] == region) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "GatherList[" + size + " pieces, " + length + " bytes]";
    }
}
