package io.jrdma.nativetest.cluster;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Bytes and their CRC-32, as one side of a stream counted them; the text form crosses the control network. */
record StreamResult(long bytes, long crc) {
    private static final Pattern FORM = Pattern.compile("bytes=(\\d+) crc=(\\p{XDigit}{8})");

    static String format(long bytes, long crc) {
        return String.format(Locale.ROOT, "bytes=%d crc=%08x", bytes, crc);
    }

    /** The result in {@code text}, e.g. a {@link NodeTask}'s output. */
    static StreamResult parse(String text) {
        Matcher m = FORM.matcher(text);
        if (!m.find()) {
            throw new AssertionError("no stream result in: " + text);
        }
        return new StreamResult(Long.parseLong(m.group(1)), Long.parseLong(m.group(2), 16));
    }

    @Override
    public String toString() {
        return format(bytes, crc);
    }
}
