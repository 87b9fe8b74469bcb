package io.jvs.tools.io;

import io.jvs.core.io.IoMessages;
import io.jvs.tools.CommandError;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks of the files a command reads, made before anything is read or written, so that a missing file is
 * one line naming it ({@code cannot read farm.rules: no such file or directory}) rather than a failure
 * part-way.
 */
public final class InputFiles
{
    private InputFiles()
    {
    }

    /**
     * @param paths the files to read; null ones (options not given) are skipped.
     * @throws CommandError (status 2) naming the first that is missing, a directory or unreadable.
     */
    public static void requireReadable(final Path... paths)
    {
        for (final Path path : paths)
        {
            if (path == null)
            {
                continue;
            }
            if (!Files.exists(path))
            {
                throw new CommandError(CommandError.REFUSED, "cannot read " + path + ": no such file or directory");
            }
            if (Files.isDirectory(path))
            {
                throw new CommandError(CommandError.REFUSED, "cannot read " + path + ": is a directory");
            }
            if (!Files.isReadable(path))
            {
                throw new CommandError(CommandError.REFUSED, "cannot read " + path + ": permission denied");
            }
        }
    }

    /**
     * Reads a text file, every failure one line naming it.
     *
     * @throws CommandError (status 2): "cannot read PATH: reason".
     */
    public static List<String> lines(final Path path)
    {
        requireReadable(path);
        try
        {
            return Files.readAllLines(path, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new CommandError(CommandError.REFUSED, "cannot read " + IoMessages.describe(path, ex));
        }
    }

    /**
     * @return whether the text holds nothing but blank lines and {@code #} comments (an empty rules or flows
     * file, worth a warning: it is seldom what was meant).
     */
    public static boolean holdsNothing(final List<String> lines)
    {
        // A loop rather than a stream of lambdas, whose call sites are linked at every start.
        for (final String line : lines)
        {
            final String stripped = line.strip();
            if (!stripped.isEmpty() && !stripped.startsWith("#"))
            {
                return false;
            }
        }
        return true;
    }
}
