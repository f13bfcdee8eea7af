"""MySQL and MariaDB (InnoDB): what an ALTER TABLE does to concurrent writes, from the manual."""
