package io.jrdma.benchmarks;

import io.jrdma.ibverbs.RdmaException;
import io.jrdma.nativetest.TestProvider;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** One test provider per benchmark thread: the native objects both the Java path and the C loops use. */
@State(Scope.Thread)
public class ProviderState {
    TestProvider tp;

    @Setup(Level.Trial)
    public void open() throws RdmaException {
        tp = TestProvider.open();
    }

    @TearDown(Level.Trial)
    public void close() throws RdmaException {
        tp.close();
    }
}
