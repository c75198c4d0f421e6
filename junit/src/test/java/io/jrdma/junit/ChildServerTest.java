package io.jrdma.junit;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChildServer} with children that need no device: one that announces a port, one that does not. */
class ChildServerTest {
    /** Announces the port in its first argument, then waits to be killed. */
    public static final class Announcing {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("listening " + args[0]);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** Prints something else first and ends. */
    public static final class Silent {
        public static void main(String[] args) {
            System.out.println("no port here");
        }
    }

    @Test
    void theChildsPortIsRead() throws Exception {
        try (ChildServer child = ChildServer.start(Announcing.class, "7471")) {
            assertEquals(7471, child.port());
            child.kill();   // returns once the child is gone
        }
    }

    @Test
    void aChildThatPrintsNoPortIsRefusedSayingWhatItPrinted() {
        IOException e = assertThrows(IOException.class, () -> ChildServer.start(Silent.class));
        assertTrue(e.getMessage().contains("no port here"), e.getMessage());
    }
}
