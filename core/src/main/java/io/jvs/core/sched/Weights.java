package io.jvs.core.sched;

/**
 * Arithmetic on weights shared by wrr and mh.
 */
final class Weights
{
    private Weights()
    {
    }

    /**
     * @param a a positive number.
     * @param b a positive number.
     * @return their greatest common divisor.
     */
    static int gcd(final int a, final int b)
    {
        int x = a;
        int y = b;
        while (y != 0)
        {
            final int r = x % y;
            x = y;
            y = r;
        }
        return x;
    }
}
