package io.jrdma.endpoint;

/**
 * Endpoints by queue pair number, for the receive completions of the shared receive queue: open addressing over
 * {@code int} keys, so that a lookup boxes nothing. The worker's thread only.
 */
final class QpnMap {
    private int[] keys = new int[64];
    private Endpoint[] values = new Endpoint[64];
    private int size;

    Endpoint get(int qpn) {
        int mask = keys.length - 1;
        for (int i = mix(qpn) & mask; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == qpn) {
                return values[i];
            }
        }
        return null;
    }

    void put(int qpn, Endpoint ep) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = mix(qpn) & mask;
        while (values[i] != null && keys[i] != qpn) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            size++;
        }
        keys[i] = qpn;
        values[i] = ep;
    }

    void remove(int qpn) {
        int mask = keys.length - 1;
        int i = mix(qpn) & mask;
        while (values[i] != null && keys[i] != qpn) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return;
        }
        values[i] = null;
        size--;
        // Re-insert the rest of the run, so that no later key is cut off from its home slot.
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int k = keys[j];
            Endpoint v = values[j];
            values[j] = null;
            size--;
            put(k, v);
        }
    }

    private void grow() {
        int[] oldKeys = keys;
        Endpoint[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Endpoint[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
