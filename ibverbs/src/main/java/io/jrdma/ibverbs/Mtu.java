package io.jrdma.ibverbs;

import io.jrdma.ibverbs.internal.NativeEnums;

import static io.jrdma.bindings.ibverbs.ibverbs_h.*;

/**
 * A path MTU ({@code enum ibv_mtu}).
 *
 * {@snippet class=io.jrdma.ibverbs.snippets.DeviceSnippets region=mtu}
 */
public enum Mtu {
    /** 256 bytes. */
    MTU_256(IBV_MTU_256(), 256),
    /** 512 bytes. */
    MTU_512(IBV_MTU_512(), 512),
    /** 1024 bytes (Soft-RoCE on a 1500-byte Ethernet MTU). */
    MTU_1024(IBV_MTU_1024(), 1024),
    /** 2048 bytes. */
    MTU_2048(IBV_MTU_2048(), 2048),
    /** 4096 bytes. */
    MTU_4096(IBV_MTU_4096(), 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** {@return the C value} */
    public int value() {
        return value;
    }

    /**
     * The MTU in bytes.
     *
     * @return 256, 512, 1024, 2048 or 4096
     */
    public int bytes() {
        return bytes;
    }

    /**
     * The MTU of {@code bytes} bytes (256, 512, 1024, 2048 or 4096).
     *
     * @param bytes the MTU in bytes
     * @return the MTU
     * @throws IllegalArgumentException for any other size
     */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("no IB MTU of " + bytes + " bytes (256, 512, 1024, 2048 or 4096)");
    }

    static Mtu of(int value) {
        Mtu m = NativeEnums.of(values(), Mtu::value, value, null);
        if (m == null) {
            throw new IllegalArgumentException("unknown ibv_mtu value " + value);
        }
        return m;
    }
}
