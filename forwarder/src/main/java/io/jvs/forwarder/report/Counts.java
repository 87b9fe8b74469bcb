package io.jvs.forwarder.report;

/**
 * A count with its noun in the right number, for the lines the tools print: "1 flow", "2 flows",
 * "0 connections".
 */
public final class Counts
{
    private Counts()
    {
    }

    /**
     * @param count    how many.
     * @param singular the noun for one; the plural adds an "s".
     * @return "1 flow" or "N flows".
     */
    public static String of(final long count, final String singular)
    {
        return of(count, singular, singular + "s");
    }

    /**
     * @return "1 SINGULAR" or "N PLURAL".
     */
    public static String of(final long count, final String singular, final String plural)
    {
        return count + " " + (count == 1 ? singular : plural);
    }
}
