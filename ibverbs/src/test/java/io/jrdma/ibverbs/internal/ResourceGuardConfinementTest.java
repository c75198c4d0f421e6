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
class ResourceGuardConfinementTest {
    /** Counts its destroys. */
    private static final class Resource {
        final ResourceGuard guard;
        int destroyed;

        private Resource(ThreadConfinement confinement, ResourceGuard... parents) {
            guard = new ResourceGuard(this, () -> destroyed++, confinement);
        }

        static Resource create(ThreadConfinement confinement, Resource... parents) {
            ResourceGuard[] guards = new ResourceGuard[parents.length];
            for (int i = 0; i < parents.length; i++) {
                guards[i] = parents[i].guard;
            }
            return ResourceGuard.create(() -> new Resource(confinement, guards), r -> r.guard, guards);
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
        Resource r = Resource.create(ThreadConfinement.CONFINED);
        for (Executable call : new Executable[] {r.guard::enter, r.guard::close, r.guard::checkOpen}) {
            Throwable t = onAnotherThread(call);
            assertInstanceOf(WrongThreadException.class, t);
            assertTrue(t.getMessage().contains(Thread.currentThread().getName()), t.getMessage());
        }
        assertFalse(r.guard.isClosed());
        assertEquals(0, r.destroyed);
        r.guard.enter();
        r.guard.exit();
        r.guard.close();
        r.guard.close();
        assertEquals(1, r.destroyed);
        assertThrows(IllegalStateException.class, r.guard::enter);
        assertThrows(IllegalStateException.class, r.guard::checkOpen);
        assertInstanceOf(WrongThreadException.class, onAnotherThread(r.guard::enter));
    }

    @Test
    void aSharedResourceServesAnyThreadAndItsCloseWaitsForCallsInFlight() throws Exception {
        Resource r = Resource.create(ThreadConfinement.SHARED);
        assertNull(onAnotherThread(() -> {
            r.guard.enter();
            r.guard.exit();
        }));
        r.guard.enter();   // a call in flight: another thread's close must wait for its exit
        CompletableFuture<Throwable> closing = CompletableFuture.supplyAsync(() -> {
            try {
                r.guard.close();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }, rn -> Thread.ofPlatform().start(rn));
        Thread.sleep(100);
        assertFalse(closing.isDone());
        assertEquals(0, r.destroyed);
        r.guard.exit();
        assertNull(closing.get(30, TimeUnit.SECONDS));
        assertEquals(1, r.destroyed);
        assertThrows(IllegalStateException.class, r.guard::enter);
    }

    @Test
    void aConfinedChildOfASharedParentKeepsTheParentOpenAndCannotBeBornOnAnotherThreadsParent() throws Exception {
        Resource parent = Resource.create(ThreadConfinement.SHARED);
        Resource child = Resource.create(ThreadConfinement.CONFINED, parent);
        assertThrows(IllegalStateException.class, parent.guard::close);
        Throwable t = onAnotherThread(() -> Resource.create(ThreadConfinement.SHARED, child));
        assertInstanceOf(WrongThreadException.class, t);
        child.guard.close();
        parent.guard.close();
        assertEquals(1, parent.destroyed);
    }
}
