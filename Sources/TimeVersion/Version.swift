/// The one place the version of Time is written: the Debian package (scripts/package-deb.sh
/// reads it from this line and checks that debian/changelog's newest entry and the man pages
/// name it), the agent's `Version` property on D-Bus, and `--version` of both programs.
public enum TimeVersion {
    public static let string = "0.6.0"
}
