package io.jrdma.nativetest.safety;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.ProtectionDomain;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * A child process for {@link LeakReportDeviceTest}: leaks N protection domains under an open context, collects
 * garbage until the context can close (every leaked one was freed), and prints each leak report (with its creation
 * site, if recorded) to standard output, then {@code CONTEXT CLOSED}.
 */
public final class LeakLevels {
    /** Held: the logging framework holds loggers weakly, and a collected one would take the handler with it. */
    private static final Logger REPORTS = Logger.getLogger(ProtectionDomain.class.getName());

    private LeakLevels() {
    }

    public static void main(String[] args) throws Exception {
        Handler out = new ConsoleHandler() {
            {
                setOutputStream(System.out);
                setFormatter(new SimpleFormatter());
                setLevel(Level.ALL);
            }
        };
        REPORTS.addHandler(out);
        int n = Integer.parseInt(args[1]);
        Context ctx = Context.open(args[0]);
        leak(ctx, n);
        for (int i = 0; i < 400; i++) {
            System.gc();
            Thread.sleep(50);
            try {
                ctx.close();
                break;
            } catch (IllegalStateException stillUsed) {
                // leaked domains not freed yet
            }
        }
        out.flush();
        System.out.println(ctx.isClosed() ? "CONTEXT CLOSED" : "CONTEXT STILL USED");
    }

    private static void leak(Context ctx, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            ctx.allocateProtectionDomain();
        }
    }
}
