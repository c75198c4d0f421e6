package io.jrdma.nativetest.support;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a test learns of a tool or child JVM that ends, and of one still running at its time limit. */
class ToolRunTest {

    @Test
    void aToolThatEndsGivesItsStatusAndOutput() throws Exception {
        ToolRun run = ToolRun.process(List.of("sh", "-c", "echo out; echo err >&2; exit 3"), 30);
        assertEquals(3, run.status());
        assertEquals("out\nerr\n", run.output());
    }

    @Test
    void aToolStillRunningAtItsLimitFailsTheTestWithWhatItPrinted() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> ToolRun.process(List.of("sh", "-c", "echo started; exec sleep 60"), 1));
        assertTrue(e.getMessage().startsWith("sh still running after 1 s, so killed"), e.getMessage());
        assertTrue(e.getMessage().contains("started"), e.getMessage());
    }

    @Test
    void aChildJvmStillRunningAtItsLimitPrintsItsThreadsStacksFirst() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> ChildJvm.run(Sleeper.class, 10));
        assertTrue(e.getMessage().contains("asleep"), e.getMessage());
        // The stack of the thread that hangs, so that a hang says where.
        assertTrue(e.getMessage().contains("Full thread dump"), e.getMessage());
        assertTrue(e.getMessage().contains("Sleeper.main"), e.getMessage());
    }

    /** A child that never ends by itself. */
    static final class Sleeper {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("asleep");
            Thread.sleep(120_000);
        }
    }
}
