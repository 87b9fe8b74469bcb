import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * A build step, run by tools/pom.xml on JDK 24 and later as a single-file program: rewrites the classes of a jar
 * whose names start with a prefix, and whose class-file version is below 50 (Java 6), to version 52 with stack maps,
 * in place. The JVM cannot put a class of a version below 50 in a class-data archive or an AOT cache (it is verified
 * by the old inference verifier, whose checks cannot be recorded: "Skipping ...: Old class has been linked"), so
 * such a library is read, parsed and verified again at every start. picocli 4.7 is compiled for Java 5, and
 * loading it was about a third of a short command's start-up.
 * <p>
 * Only the version changes and the stack maps are added: the JDK's class-file API re-emits every method's code
 * unchanged and computes its frames. Each rewritten class is checked by the API's verifier and kept as it was when
 * that reports anything, so a class this step cannot rewrite soundly only stays slow to load.
 * <p>
 * Usage: java ArchivableClasses.java JAR PREFIX  (e.g. target/jvs.jar picocli/)
 */
public final class ArchivableClasses
{
    private static final int OLDEST_ARCHIVABLE = 50;
    private static final int TARGET_VERSION = 52;

    public static void main(final String[] args) throws IOException
    {
        if (args.length != 2)
        {
            System.err.println("usage: java ArchivableClasses.java JAR PREFIX");
            System.exit(2);
        }
        final Path jar = Path.of(args[0]);
        final String prefix = args[1];
        final Path rewritten = jar.resolveSibling(jar.getFileName() + ".rewriting");
        int upgraded = 0;
        int kept = 0;
        // The jar's own classes resolve the types the frames merge; the JDK's come from the running JDK.
        try (URLClassLoader classes = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null))
        {
            final ClassFile classFile = ClassFile.of(
                ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                    .orElse(ClassHierarchyResolver.ofResourceParsing(classes))),
                ClassFile.StackMapsOption.GENERATE_STACK_MAPS);
            try (InputStream in = Files.newInputStream(jar);
                ZipInputStream entries = new ZipInputStream(in);
                OutputStream out = Files.newOutputStream(rewritten);
                ZipOutputStream written = new ZipOutputStream(out))
            {
                for (ZipEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry())
                {
                    byte[] bytes = entries.readAllBytes();
                    if (entry.getName().startsWith(prefix) && entry.getName().endsWith(".class"))
                    {
                        final ClassModel model = classFile.parse(bytes);
                        if (model.majorVersion() < OLDEST_ARCHIVABLE)
                        {
                            final byte[] upgrade = upgrade(classFile, model);
                            if (upgrade != null)
                            {
                                bytes = upgrade;
                                upgraded++;
                            }
                            else
                            {
                                kept++;
                            }
                        }
                    }
                    final ZipEntry copy = new ZipEntry(entry.getName());
                    copy.setTime(entry.getTime());
                    written.putNextEntry(copy);
                    written.write(bytes);
                    written.closeEntry();
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(rewritten);
            throw ex;
        }
        Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("ArchivableClasses: " + jar.getFileName() + ": " + upgraded + " classes under " + prefix +
            " rewritten to version " + TARGET_VERSION + (kept > 0 ? ", " + kept + " kept as they were" : ""));
    }

    /** @return the class at version 52 with stack maps, or null when it cannot be rewritten or does not verify. */
    private static byte[] upgrade(final ClassFile classFile, final ClassModel model)
    {
        try
        {
            final byte[] upgraded = classFile.transformClass(model,
                ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                    .andThen(ClassTransform.endHandler(builder -> builder.withVersion(TARGET_VERSION, 0))));
            return classFile.verify(upgraded).isEmpty() ? upgraded : null;
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return null;
        }
    }
}
