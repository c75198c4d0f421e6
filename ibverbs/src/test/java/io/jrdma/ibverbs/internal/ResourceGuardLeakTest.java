package io.jrdma.ibverbs.internal;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What becomes of objects dropped without close, on resources with nothing native behind them. */
class ResourceGuardLeakTest {
    /** Records, under its name, when its leak release runs. */
    private static final class Resource {
        final ResourceGuard guard;

        private Resource(String name, List<String> released, ResourceGuard... parents) {
            guard = new ResourceGuard(this, ResourceGuard.Lifecycle.of(() -> { }, () -> () -> released.add(name)));
        }

        static Resource root(String name, List<String> released) {
            Resource r = new Resource(name, released);
            r.guard.watchForLeaks();
            return r;
        }

        static Resource child(String name, List<String> released, Resource... parents) {
            ResourceGuard[] guards = new ResourceGuard[parents.length];
            for (int i = 0; i < parents.length; i++) {
                guards[i] = parents[i].guard;
            }
            return ResourceGuard.create(() -> new Resource(name, released, guards), r -> r.guard, guards);
        }
    }

    private static void collectUntil(List<String> released, int count) throws InterruptedException {
        for (int i = 0; i < 200 && released.size() < count; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }

    @Test
    void aChildDroppedUnderALiveParentIsReleasedAndNoLongerHoldsTheParentOpen() throws Exception {
        List<String> released = new CopyOnWriteArrayList<>();
        Resource parent = Resource.root("parent", released);
        Resource.child("child", released, parent);   // dropped at once
        collectUntil(released, 1);
        assertEquals(List.of("child"), released);
        // The cleaner runs the child's release, then detaches it from its parent: a close of the parent in between
        // is refused, as during the release itself.
        for (int i = 0; i < 200 && parent.guard.hasOpenChildren(); i++) {
            Thread.sleep(20);
        }
        parent.guard.close();   // no "still used by": the leaked child is gone
        assertTrue(parent.guard.isClosed());
    }

    @Test
    void objectsLeakedTogetherAreReleasedChildrenFirst() throws Exception {
        List<String> released = new CopyOnWriteArrayList<>();
        leakTree(released);
        collectUntil(released, 4);
        assertEquals(4, released.size(), released.toString());
        // Whatever order the cleaner finds them in, each goes after everything created from it.
        assertTrue(released.indexOf("qp") < released.indexOf("cq"), released.toString());
        assertTrue(released.indexOf("qp") < released.indexOf("pd"), released.toString());
        assertTrue(released.indexOf("cq") < released.indexOf("context"), released.toString());
        assertTrue(released.indexOf("pd") < released.indexOf("context"), released.toString());
    }

    private static void leakTree(List<String> released) {
        Resource context = Resource.root("context", released);
        Resource pd = Resource.child("pd", released, context);
        Resource cq = Resource.child("cq", released, context);
        Resource.child("qp", released, pd, cq);
    }

    @Test
    void aClosedObjectIsNeverReleasedAgain() throws Exception {
        List<String> released = new CopyOnWriteArrayList<>();
        Resource parent = Resource.root("parent", released);
        Resource child = Resource.child("child", released, parent);
        assertThrows(IllegalStateException.class, parent.guard::close, "still used by the open child");
        child.guard.close();
        child = null;
        parent.guard.close();
        parent = null;
        collectUntil(released, 1);
        assertEquals(List.of(), released);
    }
}
