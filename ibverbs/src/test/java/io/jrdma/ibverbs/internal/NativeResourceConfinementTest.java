package io.jrdma.ibverbs.internal;

import io.jrdma.ibverbs.ThreadConfinement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The close guard's two modes, on a resource with nothing native behind it. */
class NativeResourceConfinementTest {
    /** Counts its destroys. */
    private static final class Resource extends NativeResource {
        int destroyed;

        Resource(ThreadConfinement confinement, NativeResource... parents) {
            super(confinement, parents);
        }

        @Override
        protected void destroy() {
            destroyed++;
        }
    }

    private static Throwable onAnotherThread(Executable call) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                call.execute();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }, r -> Thread.ofPlatform().start(r)).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aConfinedResourceRefusesOtherThreadsAndItsOwnerAfterClose() throws Exception {
        Resource r = NativeResource.create(() -> new Resource(ThreadConfinement.CONFINED));
        for (Executable call : new Executable[] {r::enter, r::close, r::checkOpen}) {
            Throwable t = onAnotherThread(call);
            assertInstanceOf(WrongThreadException.class, t);
            assertTrue(t.getMessage().contains(Thread.currentThread().getName()), t.getMessage());
        }
        assertFalse(r.isClosed());
        assertEquals(0, r.destroyed);
        r.enter();
        r.exit();
        r.close();
        r.close();
        assertEquals(1, r.destroyed);
        assertThrows(IllegalStateException.class, r::enter);
        assertThrows(IllegalStateException.class, r::checkOpen);
        assertInstanceOf(WrongThreadException.class, onAnotherThread(r::enter));
    }

    @Test
    void aSharedResourceServesAnyThreadAndItsCloseWaitsForCallsInFlight() throws Exception {
        Resource r = NativeResource.create(() -> new Resource(ThreadConfinement.SHARED));
        assertNull(onAnotherThread(() -> {
            r.enter();
            r.exit();
        }));
        r.enter();   // a call in flight: another thread's close must wait for its exit
        CompletableFuture<Throwable> closing = CompletableFuture.supplyAsync(() -> {
            try {
                r.close();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }, rn -> Thread.ofPlatform().start(rn));
        Thread.sleep(100);
        assertFalse(closing.isDone());
        assertEquals(0, r.destroyed);
        r.exit();
        assertNull(closing.get(30, TimeUnit.SECONDS));
        assertEquals(1, r.destroyed);
        assertThrows(IllegalStateException.class, r::enter);
    }

    @Test
    void aConfinedChildOfASharedParentKeepsTheParentOpenAndCannotBeBornOnAnotherThreadsParent() throws Exception {
        Resource parent = NativeResource.create(() -> new Resource(ThreadConfinement.SHARED));
        Resource child = NativeResource.create(() -> new Resource(ThreadConfinement.CONFINED, parent), parent);
        assertThrows(IllegalStateException.class, parent::close);
        Throwable t = onAnotherThread(() -> NativeResource.create(
                () -> new Resource(ThreadConfinement.SHARED, child), child));
        assertInstanceOf(WrongThreadException.class, t);
        child.close();
        parent.close();
        assertEquals(1, parent.destroyed);
    }
}
