package io.jrdma.nativetest.cluster;

import java.util.List;

/**
 * Java work that a cluster test runs on another node, inside that node's {@link NodeAgent}: the class is named over
 * the control network and instantiated there with its no-argument constructor.
 */
interface NodeTask {
    /**
     * Does the work and says what came of it; an exception is the task's failure, reported with its stack trace.
     *
     * @param args the arguments the test passed
     * @return what the test gets back as the task's output
     */
    String run(List<String> args) throws Exception;
}
