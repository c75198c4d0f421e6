package io.jrdma.tool;

import java.util.Locale;

/**
 * GIDs in the text ibv_devinfo and the C examples print.
 *
 * {@snippet class=io.jrdma.tool.ToolSnippets region=format}
 */
public final class GidFormat {
    private GidFormat() {
    }

    /**
     * Formats a GID as ibv_devinfo prints it.
     *
     * @param gid the 16 bytes of the GID
     * @return IPv4-mapped GIDs as {@code ::ffff:a.b.c.d}, others as IPv6 with the longest zero run cut
     */
    public static String format(byte[] gid) {
        boolean mapped = gid[10] == (byte) 0xff && gid[11] == (byte) 0xff;
        for (int i = 0; i < 10 && mapped; i++) {
            mapped = gid[i] == 0;
        }
        if (mapped) {
            return String.format(Locale.ROOT, "::ffff:%d.%d.%d.%d", gid[12] & 0xff, gid[13] & 0xff, gid[14] & 0xff, gid[15] & 0xff);
        }
        int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = ((gid[2 * i] & 0xff) << 8) | (gid[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && words[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                b.append("::");
                i += bestLength - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
                b.append(':');
            }
            b.append(Integer.toHexString(words[i]));
        }
        return b.toString();
    }
}
