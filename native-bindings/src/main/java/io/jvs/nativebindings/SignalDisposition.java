package io.jvs.nativebindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A signal's disposition, which a process inherits: a daemon started under {@code nohup} inherits SIGHUP ignored, and
 * the JVM then refuses to catch it ({@code sun.misc.Signal.handle} answers {@code SIG_IGN} and installs nothing), so a
 * reload by SIGHUP would silently do nothing. A daemon that reloads on SIGHUP sets its own disposition whatever it
 * inherited, as a C daemon's sigaction(2) does: this puts the default back so that the JVM will catch the signal.
 */
public final class SignalDisposition
{
    /** SIGHUP on Linux. */
    public static final int SIGHUP = 1;
    /** SIGTERM on Linux. */
    public static final int SIGTERM = 15;
    private static final long SIG_DFL = 0;
    private static final long SIG_ERR = -1;

    private SignalDisposition()
    {
    }

    /**
     * Gives a signal its default disposition again (signal(2) with {@code SIG_DFL}).
     *
     * @param signal the signal's number.
     * @return whether the call succeeded.
     */
    public static boolean restoreDefault(final int signal)
    {
        try
        {
            return (long)Linked.SIGNAL.invokeExact(signal, SIG_DFL) != SIG_ERR;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    /** Linked on first use: a downcall's stub costs a short command's start about 10 ms. */
    private static final class Linked
    {
        private static final Linker LINKER = Linker.nativeLinker();
        static final MethodHandle SIGNAL = LINKER.downcallHandle(LINKER.defaultLookup().find("signal").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    }
}
