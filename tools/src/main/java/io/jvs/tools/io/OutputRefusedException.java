package io.jvs.tools.io;

import io.jvs.tools.CommandError;

/**
 * An output {@link OutputFiles#prepare} will not write: the same file as an input or another output, a
 * directory, or a place where no file can be created. Exit status 2: nothing was read or written.
 */
public final class OutputRefusedException extends CommandError
{
    /**
     * @param message the option, the path and the reason.
     */
    public OutputRefusedException(final String message)
    {
        super(REFUSED, message);
    }
}
