#!/bin/sh
# Make the hall's password file: user "hub" and one user per table ("1" ... "N"),
# each with a random password. Writes DIR/passwd (hashed, for the broker) and
# DIR/secrets/<user>.pass (the plain password, to copy to that machine's
# password_file). Usage: make-passwords.sh DIR TABLES
set -eu
dir=${1:?usage: make-passwords.sh DIR TABLES}
tables=${2:?usage: make-passwords.sh DIR TABLES}
umask 077
mkdir -p "$dir/secrets"
: > "$dir/passwd"
for user in hub $(seq 1 "$tables"); do
    pass=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    printf '%s\n' "$pass" > "$dir/secrets/$user.pass"
    mosquitto_passwd -b "$dir/passwd" "$user" "$pass"
done
echo "wrote $dir/passwd and $dir/secrets/ (hub + $tables tables)"
