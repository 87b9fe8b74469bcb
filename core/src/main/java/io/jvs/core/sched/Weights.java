package io.jvs.core.sched;

/**
 * Arithmetic on weights shared by wrr, mh and the least-load schedulers' keys.
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
        return (int)gcd((long)a, b);
    }

    /**
     * @param a a positive number.
     * @param b a positive number.
     * @return their greatest common divisor.
     */
    static long gcd(final long a, final long b)
    {
        long x = a;
        long y = b;
        while (y != 0)
        {
            final long r = x % y;
            x = y;
            y = r;
        }
        return x;
    }
}
