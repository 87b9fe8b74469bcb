package io.jvs.tools.io;

import io.jvs.core.io.IoMessages;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The files one run of a command writes, as one transaction: every output is checked and given a temporary
 * file in its own directory before anything is read, the command writes the temporaries, and only a run that
 * succeeds renames them into place ({@link #commit()}); otherwise {@link #close()} deletes them, so a file
 * that existed before stays byte for byte as it was and a failed run leaves nothing behind.
 * <p>
 * {@link #prepare} refuses, before anything is opened for writing, an output that is the same file as an
 * input or as another output. Files are compared, not names: {@link Files#isSameFile} for files that exist
 * (hard links, symbolic links, {@code ./} forms), and the real path of the directory plus the name for
 * files still to be created.
 * <pre>
 * try (OutputFiles files = OutputFiles.prepare(List.of(new NamedPath("--in", in)),
 *     List.of(new NamedPath("--out", out))))
 * {
 *     write(files.temporary(out));
 *     files.commit();
 * }
 * </pre>
 * An output that exists and is not a regular file ({@code /dev/null}, a FIFO) is written directly: there is
 * nothing there to keep, and renaming over a device would replace it. An output that is a symbolic link is
 * written to the file it points to, so the link stays. Renaming gives the new file its own inode: a hard link
 * to the old one keeps the old bytes.
 */
public final class OutputFiles implements AutoCloseable
{
    private final Map<Path, Path> temporaries = new LinkedHashMap<>();
    private final Map<Path, Path> targets = new LinkedHashMap<>();
    private final Thread cleanup = new Thread(this::deleteTemporaries, "jvs-output-cleanup");
    private boolean hooked;
    private boolean committed;

    private OutputFiles()
    {
    }

    /**
     * Checks every output against the inputs and the other outputs, and creates each output's temporary
     * file, which proves its directory exists and takes a new file.
     *
     * @param inputs  the files the run reads (a null path is skipped; one that does not exist cannot clash).
     * @param outputs the files the run writes (a null path is skipped).
     * @return the transaction; close it when the run ends.
     * @throws OutputRefusedException naming the option, the path and the reason; nothing is left behind.
     */
    public static OutputFiles prepare(final List<NamedPath> inputs, final List<NamedPath> outputs)
    {
        final OutputFiles files = new OutputFiles();
        try
        {
            final List<NamedPath> checked = new ArrayList<>();
            for (final NamedPath output : outputs)
            {
                if (output.path() == null)
                {
                    continue;
                }
                files.check(output, inputs, checked);
                checked.add(output);
            }
            for (final NamedPath output : checked)
            {
                files.create(output);
            }
            Runtime.getRuntime().addShutdownHook(files.cleanup);
            files.hooked = true;
            return files;
        }
        catch (final RuntimeException ex)
        {
            files.deleteTemporaries();
            throw ex;
        }
    }

    private void check(final NamedPath output, final List<NamedPath> inputs, final List<NamedPath> others)
    {
        final Path path = output.path();
        if (path.toString().isEmpty())
        {
            throw new OutputRefusedException(output.option() + " needs a file name, not an empty one");
        }
        if (Files.isDirectory(path))
        {
            throw new OutputRefusedException(output.option() + " " + path + ": is a directory");
        }
        if (Files.exists(path) && !Files.isRegularFile(path))
        {
            // A device or a FIFO (/dev/null for two outputs is fine): nothing there to destroy.
            return;
        }
        for (final NamedPath input : inputs)
        {
            if (input.path() != null && sameFile(input.path(), path))
            {
                throw new OutputRefusedException(output.option() + " " + path + " is the same file as " +
                    input.option() + " " + input.path() + ": writing it would destroy the input");
            }
        }
        for (final NamedPath other : others)
        {
            if (sameFile(other.path(), path))
            {
                throw new OutputRefusedException(output.option() + " " + path + " is the same file as " +
                    other.option() + " " + other.path() + ": give each output its own file");
            }
        }
        final Path parent = directoryOf(path);
        final Path shown = path.getParent() == null ? Path.of(".") : path.getParent();
        if (!Files.exists(parent))
        {
            throw new OutputRefusedException(output.option() + " " + path + ": no such directory " + shown);
        }
        if (!Files.isDirectory(parent))
        {
            throw new OutputRefusedException(output.option() + " " + path + ": " + shown + " is not a directory");
        }
        if (Files.isRegularFile(path) && !Files.isWritable(path))
        {
            throw new OutputRefusedException(output.option() + " " + path + ": permission denied");
        }
    }

    private void create(final NamedPath output)
    {
        final Path path = output.path();
        final Path target = target(path);
        if (Files.exists(target) && !Files.isRegularFile(target))
        {
            // A device or a FIFO: written in place, nothing to rename.
            temporaries.put(path, path);
            return;
        }
        final Path directory = directoryOf(target);
        for (int attempt = 0; ; attempt++)
        {
            final Path temporary = directory.resolve("." + target.getFileName() + ".jvs-" +
                Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + ".tmp");
            try
            {
                // createFile gives the mode a new file gets (0666 less the umask), as the final file would have.
                Files.createFile(temporary);
                temporaries.put(path, temporary);
                targets.put(temporary, target);
                return;
            }
            catch (final FileAlreadyExistsException ex)
            {
                if (attempt == 10)
                {
                    throw new OutputRefusedException(output.option() + " " + path + ": cannot create a " +
                        "temporary file in " + directory);
                }
            }
            catch (final IOException ex)
            {
                final Path shown = path.getParent() == null ? Path.of(".") : path.getParent();
                throw new OutputRefusedException(output.option() + " " + path + ": cannot create a file in " +
                    (target.equals(path) ? shown : directory) + ": " + IoMessages.reason(ex));
            }
        }
    }

    /**
     * @param output an output given to {@link #prepare}.
     * @return where to write it during the run.
     */
    public Path temporary(final Path output)
    {
        if (output == null)
        {
            return null;
        }
        final Path temporary = temporaries.get(output);
        if (temporary == null)
        {
            throw new IllegalArgumentException(output + " is not one of the prepared outputs");
        }
        return temporary;
    }

    /**
     * Renames every temporary into place, each keeping the mode of the file it replaces.
     *
     * @throws IOException as a {@link FileSystemException} naming the output, not its temporary.
     */
    public void commit() throws IOException
    {
        for (final Map.Entry<Path, Path> entry : targets.entrySet())
        {
            final Path temporary = entry.getKey();
            final Path target = entry.getValue();
            try
            {
                if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS))
                {
                    Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(target));
                }
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            catch (final IOException ex)
            {
                throw new FileSystemException(target.toString(), null, IoMessages.reason(ex));
            }
        }
        committed = true;
        targets.clear();
    }

    /**
     * @param ex an exception of the run.
     * @return the exception's message with every temporary's name replaced by its output's, so a reason such
     * as "No space left on device" names the file the user gave.
     */
    public String describe(final IOException ex)
    {
        return userNames(IoMessages.describe(ex));
    }

    /**
     * @param output the output that was being written.
     * @param ex     what writing it threw.
     * @return "OUTPUT: reason", the output named once and by the name the user gave.
     */
    public String describe(final Path output, final IOException ex)
    {
        return userNames(IoMessages.describe(temporary(output), ex));
    }

    private String userNames(final String described)
    {
        String message = described;
        for (final Map.Entry<Path, Path> entry : temporaries.entrySet())
        {
            if (!entry.getKey().equals(entry.getValue()))
            {
                message = message.replace(entry.getValue().toString(), entry.getKey().toString());
            }
        }
        return message;
    }

    /**
     * @return whether {@link #commit()} has put the outputs in place.
     */
    public boolean committed()
    {
        return committed;
    }

    /**
     * Deletes what {@link #commit()} has not put in place.
     */
    @Override
    public void close()
    {
        deleteTemporaries();
        if (hooked)
        {
            hooked = false;
            try
            {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            }
            catch (final IllegalStateException ex)
            {
                // The JVM is shutting down: the hook runs, or has run, and deletes the same files.
            }
        }
    }

    private void deleteTemporaries()
    {
        for (final Path temporary : targets.keySet())
        {
            try
            {
                Files.deleteIfExists(temporary);
            }
            catch (final IOException ex)
            {
                // Best effort: the run's own error is the one to report.
            }
        }
    }

    /** Where an output's bytes end up: the file a symbolic link points to, or the path itself. */
    private static Path target(final Path path)
    {
        if (Files.isSymbolicLink(path))
        {
            try
            {
                return path.toRealPath();
            }
            catch (final IOException ex)
            {
                // A dangling link: the file is created where the link points.
                try
                {
                    final Path link = Files.readSymbolicLink(path);
                    return directoryOf(path).resolve(link);
                }
                catch (final IOException unreadable)
                {
                    return path;
                }
            }
        }
        return path;
    }

    private static Path directoryOf(final Path path)
    {
        final Path parent = path.toAbsolutePath().getParent();
        return parent == null ? path.toAbsolutePath().getRoot() : parent;
    }

    /**
     * Whether two paths name one file: by {@link Files#isSameFile} when both exist, else by the real path of
     * the nearest directory that exists plus the rest of the name.
     */
    static boolean sameFile(final Path a, final Path b)
    {
        try
        {
            if (Files.exists(a) && Files.exists(b))
            {
                return Files.isSameFile(a, b);
            }
            return canonical(target(a)).equals(canonical(target(b)));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static Path canonical(final Path path) throws IOException
    {
        final Path absolute = path.toAbsolutePath().normalize();
        if (Files.exists(absolute))
        {
            return absolute.toRealPath();
        }
        final Path parent = absolute.getParent();
        if (parent == null)
        {
            return absolute;
        }
        return canonical(parent).resolve(absolute.getFileName());
    }

    /**
     * A file named on the command line, with the option that named it.
     *
     * @param option the option, with its dashes: {@code --out}.
     * @param path   the path as given, or null when the option was not given.
     */
    public record NamedPath(String option, Path path)
    {
    }
}
