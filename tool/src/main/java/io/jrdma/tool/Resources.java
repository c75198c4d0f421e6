package io.jrdma.tool;

/**
 * Closing several resources in a given order, all of them even when some fail.
 *
 * {@snippet class=io.jrdma.tool.ToolSnippets region=close-all}
 */
public final class Resources {
    private Resources() {
    }

    /**
     * Closes each non-null resource in order, all of them even when one fails.
     *
     * @param resources what to close; nulls are skipped
     * @throws Exception the first failure, with the later ones suppressed
     */
    public static void closeAll(AutoCloseable... resources) throws Exception {
        Exception failure = null;
        for (AutoCloseable c : resources) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
