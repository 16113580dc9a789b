//! `tessera migrate`: a community's SQLite database copied into PostgreSQL in one PostgreSQL
//! transaction, and checked row by row before it commits. A failure anywhere leaves the target as
//! it was.
//!
//! Both ends are opened as the bot opens them, so each is first brought to the current schema (an
//! old SQLite file is migrated, an empty PostgreSQL database gets its tables). The tables, their
//! columns, types, primary keys and references are read from PostgreSQL's catalogue, so a
//! migration that adds a table or a column is copied with no change here. Ids are kept as they
//! are, so every reference between rows stays right; the identity sequences are then moved past
//! them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use tokio_postgres::types::ToSql;

use crate::PgStore;
use crate::SqliteStore;
use crate::database::Database;

/// Tables that belong to a database, not to the community in it: never copied, never counted.
/// `schema_version` is each database's own migrations. `leases` say which process on that
/// database does the once-only work (a clock, a Matrix sync, a Discord shard): SQLite's holders
/// never run on PostgreSQL, and written over a live bot's lease one would take its work away.
const NOT_COPIED: &[&str] = &["schema_version", "leases"];

/// What a migration copied: the source file, the target (described: no password) and each
/// table's rows, in the order they were copied (every table after those it refers to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub from: String,
    pub to: String,
    pub tables: Vec<TableReport>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableReport {
    pub table: String,
    /// The rows copied from SQLite; each was read back equal.
    pub rows: u64,
    /// Rows the target already had that SQLite does not (only with `force`), left as they were.
    pub other_rows: u64,
}

/// The refusal to copy into a database that already holds rows, when not forced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetNotEmpty {
    /// The target, described.
    pub to: String,
    /// Each table that holds rows, with how many.
    pub tables: Vec<(String, u64)>,
}

impl fmt::Display for TargetNotEmpty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held: Vec<String> = self.tables.iter().map(|(t, n)| format!("{t} {n}")).collect();
        write!(
            f,
            "{} already holds rows ({}), so nothing was copied: migrate into an empty database, or give \
             --force to write the SQLite rows over the rows with the same keys",
            self.to,
            held.join(", ")
        )
    }
}

impl std::error::Error for TargetNotEmpty {}

/// Copies the SQLite database at `from` into the PostgreSQL database `to`, keeping every id, and
/// checks the copy. A target that holds rows is refused ([`TargetNotEmpty`]) unless `force`:
/// then each row is written over the one with its key, so running it again changes nothing.
pub fn migrate(from: &Path, to: &Database, force: bool) -> Result<Report> {
    let Database::Postgres(address) = to else {
        bail!("the target must be a PostgreSQL address, postgres://user:password@host:port/db");
    };
    let described = to.describe();
    // SqliteStore::open would make a new, empty database: a wrong path should say so instead.
    if !from.is_file() {
        bail!(
            "there is no SQLite database at {}: give the bot's database file (DATA_DIR/tessera.sqlite)",
            from.display()
        );
    }
    let source =
        SqliteStore::open(from).with_context(|| format!("opening the SQLite database {}", from.display()))?;
    let target =
        PgStore::connect(address.expose()).with_context(|| format!("opening the database {described}"))?;
    let mut conn = source.conn();
    // One read transaction: the copy is one moment of the file, even while the bot writes to it.
    let snapshot = conn.transaction().context("beginning to read the SQLite database")?;
    let tables = target.run(async |c| copy(c, &snapshot, &described, force).await).map_err(|e| {
        if e.is::<TargetNotEmpty>() {
            e
        } else {
            e.context(format!("nothing was copied ({described} is as it was)"))
        }
    })?;
    Ok(Report { from: from.display().to_string(), to: described, tables })
}

/// The whole copy in one transaction of the target's: check, copy, read back, commit.
async fn copy(
    c: &mut deadpool_postgres::Client,
    source: &Connection,
    to: &str,
    force: bool,
) -> Result<Vec<TableReport>> {
    let tx = c.transaction().await.context("beginning the copy")?;
    let tables = target_tables(&tx).await?;
    let version: i64 =
        tx.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[]).await?.try_get(0)?;
    same_schema(source, &tables, version)?;
    // Nobody else writes to the tables until the copy commits: the emptiness seen stays true.
    let names: Vec<String> = tables.iter().map(|t| quote(&t.name)).collect();
    tx.batch_execute(&format!("LOCK TABLE {} IN EXCLUSIVE MODE", names.join(", ")))
        .await
        .context("locking the target's tables")?;
    let mut held = Vec::new();
    for t in &tables {
        let n: i64 =
            tx.query_one(&format!("SELECT COUNT(*) FROM {}", quote(&t.name)), &[]).await?.try_get(0)?;
        if n > 0 {
            held.push((t.name.clone(), n.unsigned_abs()));
        }
    }
    if !held.is_empty() && !force {
        return Err(TargetNotEmpty { to: to.into(), tables: held }.into());
    }
    let mut report = Vec::new();
    for t in &tables {
        let rows = read_source(source, t)?;
        for chunk in rows.chunks(t.rows_per_insert()) {
            upsert(&tx, t, chunk).await.with_context(|| format!("copying {}", t.name))?;
        }
        let other_rows = verify(&tx, t, &rows).await?;
        report.push(TableReport { table: t.name.clone(), rows: rows.len() as u64, other_rows });
    }
    // Last: setval is never rolled back, so a copy that fails before here leaves them as they were.
    reset_sequences(&tx, &tables).await?;
    tx.commit().await.context("committing the copy")?;
    Ok(report)
}

/// A target column's type, as far as the copy converts to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    BigInt,
    Int,
    SmallInt,
    Bool,
    Text,
    Bytes,
    Double,
    Real,
}

impl Kind {
    /// From `information_schema.columns.data_type`.
    fn of(data_type: &str) -> Option<Kind> {
        Some(match data_type {
            "bigint" => Kind::BigInt,
            "integer" => Kind::Int,
            "smallint" => Kind::SmallInt,
            "boolean" => Kind::Bool,
            "text" | "character varying" => Kind::Text,
            "bytea" => Kind::Bytes,
            "double precision" => Kind::Double,
            "real" => Kind::Real,
            _ => return None,
        })
    }

    /// What an SQLite value must be to fit.
    fn takes(self) -> &'static str {
        match self {
            Kind::BigInt => "an integer",
            Kind::Int => "an integer from -2147483648 to 2147483647",
            Kind::SmallInt => "an integer from -32768 to 32767",
            Kind::Bool => "the integer 0 or 1",
            Kind::Text => "UTF-8 text without NUL characters",
            Kind::Bytes => "a blob or text",
            Kind::Double => "a number",
            Kind::Real => "a number a 4-byte float holds exactly",
        }
    }
}

#[derive(Debug)]
struct Column {
    name: String,
    /// As PostgreSQL names it, for messages.
    type_name: String,
    kind: Kind,
    nullable: bool,
}

#[derive(Debug)]
struct Table {
    name: String,
    columns: Vec<Column>,
    /// The primary key's columns, as indexes into `columns`.
    key: Vec<usize>,
}

impl Table {
    fn column_list(&self) -> String {
        self.columns.iter().map(|c| quote(&c.name)).collect::<Vec<_>>().join(", ")
    }

    /// Rows per INSERT: well inside PostgreSQL's 65535 parameters a statement.
    fn rows_per_insert(&self) -> usize {
        (8192 / self.columns.len().max(1)).max(1)
    }

    /// A row's key, for matching rows read back to the rows copied.
    fn key_of(&self, row: &[Cell]) -> String {
        format!("{:?}", self.key.iter().map(|&i| &row[i]).collect::<Vec<_>>())
    }

    /// A row's key for messages: `id 3`, `game_id 3, ply 2`.
    fn show_key(&self, row: &[Cell]) -> String {
        let parts: Vec<String> =
            self.key.iter().map(|&i| format!("{} {}", self.columns[i].name, row[i])).collect();
        parts.join(", ")
    }
}

/// The target's tables (all of them but [`NOT_COPIED`]), each after every table it refers to.
async fn target_tables(tx: &deadpool_postgres::Transaction<'_>) -> Result<Vec<Table>> {
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    for r in tx
        .query(
            "SELECT tablename::text FROM pg_tables
             WHERE schemaname = current_schema() AND tablename <> ALL($1)",
            &[&NOT_COPIED],
        )
        .await
        .context("reading the target's tables")?
    {
        let name: String = r.try_get(0)?;
        tables.insert(name.clone(), Table { name, columns: Vec::new(), key: Vec::new() });
    }
    if tables.is_empty() {
        bail!("the target has no tables: it is not Tessera's schema");
    }
    for r in tx
        .query(
            "SELECT table_name::text, column_name::text, data_type::text, is_nullable = 'YES'
             FROM information_schema.columns WHERE table_schema = current_schema()
             ORDER BY table_name, ordinal_position",
            &[],
        )
        .await
        .context("reading the target's columns")?
    {
        let (table, name, type_name): (String, String, String) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        let Some(t) = tables.get_mut(&table) else { continue };
        let Some(kind) = Kind::of(&type_name) else {
            bail!(
                "the PostgreSQL column {table}.{name} is of type {type_name}, which migrate does not copy \
                 (it copies integers, booleans, text, bytea and floating point)"
            );
        };
        t.columns.push(Column { name, type_name, kind, nullable: r.try_get(3)? });
    }
    for r in tx
        .query(
            "SELECT tc.table_name::text, kcu.column_name::text
             FROM information_schema.table_constraints tc
             JOIN information_schema.key_column_usage kcu ON kcu.constraint_schema = tc.constraint_schema
                 AND kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name
             WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'PRIMARY KEY'
             ORDER BY tc.table_name, kcu.ordinal_position",
            &[],
        )
        .await
        .context("reading the target's primary keys")?
    {
        let (table, column): (String, String) = (r.try_get(0)?, r.try_get(1)?);
        let Some(t) = tables.get_mut(&table) else { continue };
        let Some(i) = t.columns.iter().position(|c| c.name == column) else {
            bail!("the primary key of {table} names {column}, which is not among its columns");
        };
        t.key.push(i);
    }
    if let Some(t) = tables.values().find(|t| t.key.is_empty()) {
        bail!("the table {} has no primary key, so a second run could not match its rows", t.name);
    }
    let mut refers = Vec::new();
    for r in tx
        .query(
            "SELECT src.relname::text, dst.relname::text FROM pg_constraint c
             JOIN pg_class src ON src.oid = c.conrelid JOIN pg_class dst ON dst.oid = c.confrelid
             JOIN pg_namespace n ON n.oid = c.connamespace
             WHERE c.contype = 'f' AND n.nspname = current_schema()",
            &[],
        )
        .await
        .context("reading the target's references")?
    {
        refers.push((r.try_get::<_, String>(0)?, r.try_get::<_, String>(1)?));
    }
    in_reference_order(tables, &refers)
}

/// The tables, each after those it refers to (`refers`: from, to); ties by name, so the order is
/// always the same.
fn in_reference_order(mut left: BTreeMap<String, Table>, refers: &[(String, String)]) -> Result<Vec<Table>> {
    let mut order = Vec::new();
    while !left.is_empty() {
        let ready = left
            .keys()
            .find(|name| {
                refers.iter().all(|(from, to)| from != *name || to == *name || !left.contains_key(to))
            })
            .cloned();
        let Some(t) = ready.and_then(|name| left.remove(&name)) else {
            let names: Vec<&str> = left.keys().map(String::as_str).collect();
            bail!("the tables {} refer to each other in a circle, so no order copies them", names.join(", "));
        };
        order.push(t);
    }
    Ok(order)
}

/// Checks that SQLite has the target's tables and columns at the target's schema version: both
/// were brought to this Tessera's current schema, so anything else is a database changed by hand.
fn same_schema(source: &Connection, tables: &[Table], version: i64) -> Result<()> {
    let mismatch = "both should be exactly Tessera's schema; was one changed by hand?";
    let source_version: i64 =
        source.query_row("SELECT COALESCE(MAX(version), 0) FROM schema_version", [], |r| r.get(0))?;
    if source_version != version {
        bail!("the SQLite database has schema version {source_version}, PostgreSQL {version}: {mismatch}");
    }
    let mut names: BTreeSet<String> = source
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    names.retain(|name| !NOT_COPIED.contains(&name.as_str()));
    let target: BTreeSet<String> = tables.iter().map(|t| t.name.clone()).collect();
    if names != target {
        bail!(
            "the SQLite database has the tables {} and PostgreSQL {}: {mismatch}",
            names.iter().cloned().collect::<Vec<_>>().join(", "),
            target.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    for t in tables {
        let columns: BTreeSet<String> = source
            .prepare("SELECT name FROM pragma_table_info(?1)")?
            .query_map([&t.name], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let target: BTreeSet<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        if columns != target {
            bail!(
                "the table {} has the columns {} in SQLite and {} in PostgreSQL: {mismatch}",
                t.name,
                columns.into_iter().collect::<Vec<_>>().join(", "),
                target.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
    }
    Ok(())
}

/// A value in the target column's type, or NULL.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    BigInt(Option<i64>),
    Int(Option<i32>),
    SmallInt(Option<i16>),
    Bool(Option<bool>),
    Text(Option<String>),
    Bytes(Option<Vec<u8>>),
    Double(Option<f64>),
    Real(Option<f32>),
}

impl Cell {
    fn null(kind: Kind) -> Cell {
        match kind {
            Kind::BigInt => Cell::BigInt(None),
            Kind::Int => Cell::Int(None),
            Kind::SmallInt => Cell::SmallInt(None),
            Kind::Bool => Cell::Bool(None),
            Kind::Text => Cell::Text(None),
            Kind::Bytes => Cell::Bytes(None),
            Kind::Double => Cell::Double(None),
            Kind::Real => Cell::Real(None),
        }
    }

    /// As a statement's parameter: the Rust type tokio-postgres writes the column's type from.
    fn param(&self) -> &(dyn ToSql + Sync) {
        match self {
            Cell::BigInt(v) => v,
            Cell::Int(v) => v,
            Cell::SmallInt(v) => v,
            Cell::Bool(v) => v,
            Cell::Text(v) => v,
            Cell::Bytes(v) => v,
            Cell::Double(v) => v,
            Cell::Real(v) => v,
        }
    }

    fn read(row: &tokio_postgres::Row, i: usize, kind: Kind) -> Result<Cell, tokio_postgres::Error> {
        Ok(match kind {
            Kind::BigInt => Cell::BigInt(row.try_get(i)?),
            Kind::Int => Cell::Int(row.try_get(i)?),
            Kind::SmallInt => Cell::SmallInt(row.try_get(i)?),
            Kind::Bool => Cell::Bool(row.try_get(i)?),
            Kind::Text => Cell::Text(row.try_get(i)?),
            Kind::Bytes => Cell::Bytes(row.try_get(i)?),
            Kind::Double => Cell::Double(row.try_get(i)?),
            Kind::Real => Cell::Real(row.try_get(i)?),
        })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::BigInt(Some(v)) => write!(f, "{v}"),
            Cell::Int(Some(v)) => write!(f, "{v}"),
            Cell::SmallInt(Some(v)) => write!(f, "{v}"),
            Cell::Bool(Some(v)) => write!(f, "{v}"),
            Cell::Text(Some(v)) => write!(f, "{}", shown_text(v)),
            Cell::Bytes(Some(v)) => write!(f, "{} bytes", v.len()),
            Cell::Double(Some(v)) => write!(f, "{v}"),
            Cell::Real(Some(v)) => write!(f, "{v}"),
            _ => f.write_str("NULL"),
        }
    }
}

/// Text for a message: quoted, and cut if long.
fn shown_text(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() { format!("{cut:?}…") } else { format!("{cut:?}") }
}

/// An SQLite value for a message.
fn shown(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => format!("the integer {i}"),
        ValueRef::Real(r) => format!("the real {r}"),
        ValueRef::Text(t) => format!("the text {}", shown_text(&String::from_utf8_lossy(t))),
        ValueRef::Blob(b) => format!("a blob of {} bytes", b.len()),
    }
}

/// An SQLite value in the target column's type; why not, if it does not fit.
fn convert(value: ValueRef<'_>, column: &Column) -> Result<Cell, String> {
    let unfit = || {
        format!(
            "{} does not fit PostgreSQL's {}, which takes {}",
            shown(value),
            column.type_name,
            column.kind.takes()
        )
    };
    Ok(match (column.kind, value) {
        (_, ValueRef::Null) if column.nullable => Cell::null(column.kind),
        (_, ValueRef::Null) => {
            return Err(format!("NULL, where PostgreSQL's {} needs a value", column.type_name));
        }
        (Kind::BigInt, ValueRef::Integer(i)) => Cell::BigInt(Some(i)),
        (Kind::Int, ValueRef::Integer(i)) => Cell::Int(Some(i32::try_from(i).map_err(|_| unfit())?)),
        (Kind::SmallInt, ValueRef::Integer(i)) => {
            Cell::SmallInt(Some(i16::try_from(i).map_err(|_| unfit())?))
        }
        (Kind::Bool, ValueRef::Integer(i @ (0 | 1))) => Cell::Bool(Some(i == 1)),
        (Kind::Text, ValueRef::Text(t)) => match std::str::from_utf8(t) {
            Ok(s) if !s.contains('\0') => Cell::Text(Some(s.to_string())),
            _ => return Err(unfit()),
        },
        (Kind::Bytes, ValueRef::Blob(b) | ValueRef::Text(b)) => Cell::Bytes(Some(b.to_vec())),
        (Kind::Double, ValueRef::Real(r)) => Cell::Double(Some(r)),
        // Exactly, or not at all: a copy that rounds would not read back equal. (Back through
        // i128: a cast to i64 saturates, so i64::MAX would seem to survive a trip through 2^63.)
        (Kind::Double, ValueRef::Integer(i)) if (i as f64) as i128 == i128::from(i) => {
            Cell::Double(Some(i as f64))
        }
        (Kind::Real, ValueRef::Real(r)) if f64::from(r as f32) == r => Cell::Real(Some(r as f32)),
        (Kind::Real, ValueRef::Integer(i)) if (i as f32) as i128 == i128::from(i) => {
            Cell::Real(Some(i as f32))
        }
        _ => return Err(unfit()),
    })
}

/// Every row of a table in SQLite, converted to the target's types.
fn read_source(source: &Connection, t: &Table) -> Result<Vec<Vec<Cell>>> {
    let mut stmt = source
        .prepare(&format!("SELECT {} FROM {}", t.column_list(), quote(&t.name)))
        .with_context(|| format!("reading {} from SQLite", t.name))?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut cells = Vec::with_capacity(t.columns.len());
        for (i, column) in t.columns.iter().enumerate() {
            match convert(row.get_ref(i)?, column) {
                Ok(cell) => cells.push(cell),
                Err(why) => {
                    let key: Vec<String> = t
                        .key
                        .iter()
                        .map(|&k| Ok(format!("{} {}", t.columns[k].name, shown_key(row.get_ref(k)?))))
                        .collect::<rusqlite::Result<_>>()?;
                    bail!("the {} row with {}, column {}: {why}", t.name, key.join(", "), column.name);
                }
            }
        }
        out.push(cells);
    }
    Ok(out)
}

/// A key column's SQLite value, for a message.
fn shown_key(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Text(t) => shown_text(&String::from_utf8_lossy(t)),
        other => shown(other),
    }
}

/// Writes rows into the target, each over the row with its key if there is one.
async fn upsert(tx: &deadpool_postgres::Transaction<'_>, t: &Table, rows: &[Vec<Cell>]) -> Result<()> {
    let n = t.columns.len();
    let values: Vec<String> = (0..rows.len())
        .map(|r| format!("({})", (1..=n).map(|c| format!("${}", r * n + c)).collect::<Vec<_>>().join(", ")))
        .collect();
    let key: Vec<String> = t.key.iter().map(|&i| quote(&t.columns[i].name)).collect();
    let set: Vec<String> = t
        .columns
        .iter()
        .enumerate()
        .filter(|(i, _)| !t.key.contains(i))
        .map(|(_, c)| format!("{q} = EXCLUDED.{q}", q = quote(&c.name)))
        .collect();
    let action =
        if set.is_empty() { "NOTHING".to_string() } else { format!("UPDATE SET {}", set.join(", ")) };
    let sql = format!(
        "INSERT INTO {} ({}) VALUES {} ON CONFLICT ({}) DO {action}",
        quote(&t.name),
        t.column_list(),
        values.join(", "),
        key.join(", ")
    );
    let params: Vec<&(dyn ToSql + Sync)> = rows.iter().flatten().map(Cell::param).collect();
    tx.execute(sql.as_str(), &params).await?;
    Ok(())
}

/// Reads the table back from the target: every row copied must be there, equal to SQLite's. The
/// number of other rows the target has (kept with `force`).
async fn verify(tx: &deadpool_postgres::Transaction<'_>, t: &Table, rows: &[Vec<Cell>]) -> Result<u64> {
    let sql = format!("SELECT {} FROM {}", t.column_list(), quote(&t.name));
    let mut back: HashMap<String, Vec<Cell>> = HashMap::new();
    for r in tx.query(sql.as_str(), &[]).await.with_context(|| format!("reading {} back", t.name))? {
        let cells = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Cell::read(&r, i, c.kind))
            .collect::<Result<Vec<_>, _>>()?;
        back.insert(t.key_of(&cells), cells);
    }
    let mut matched = BTreeSet::new();
    for row in rows {
        let key = t.key_of(row);
        let Some(found) = back.get(&key) else {
            bail!(
                "checking the copy: the {} row with {} is not in PostgreSQL after copying it",
                t.name,
                t.show_key(row)
            );
        };
        if let Some(i) = (0..row.len()).find(|&i| row[i] != found[i]) {
            bail!(
                "checking the copy: the {} row with {}, column {}: SQLite has {}, PostgreSQL read back {}",
                t.name,
                t.show_key(row),
                t.columns[i].name,
                row[i],
                found[i]
            );
        }
        matched.insert(key);
    }
    if matched.len() != rows.len() {
        bail!(
            "checking the copy: SQLite has {} rows in {}, PostgreSQL {} with their keys",
            rows.len(),
            t.name,
            matched.len()
        );
    }
    Ok((back.len() - matched.len()) as u64)
}

/// Moves every identity (or serial) sequence of the copied tables past the largest id, so the next
/// row inserted gets a fresh one. A sequence already past it is left alone: a second run changes
/// nothing, and no id is ever handed out twice.
async fn reset_sequences(tx: &deadpool_postgres::Transaction<'_>, tables: &[Table]) -> Result<()> {
    let generated = tx
        .query(
            "SELECT table_name::text, column_name::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')",
            &[],
        )
        .await
        .context("reading the target's sequences")?;
    for r in generated {
        let (table, column): (String, String) = (r.try_get(0)?, r.try_get(1)?);
        if !tables.iter().any(|t| t.name == table) {
            continue;
        }
        let moving = async {
            let sequence: Option<String> = tx
                .query_one("SELECT pg_get_serial_sequence($1, $2)", &[&quote(&table), &column])
                .await?
                .try_get(0)?;
            let Some(sequence) = sequence else { return Ok(()) };
            // pg_get_serial_sequence's answer is already quoted where it needs to be.
            let state = tx.query_one(&format!("SELECT last_value, is_called FROM {sequence}"), &[]).await?;
            let (last, called): (i64, bool) = (state.try_get(0)?, state.try_get(1)?);
            let next = if called { last.saturating_add(1) } else { last };
            let max: Option<i64> = tx
                .query_one(&format!("SELECT MAX({})::BIGINT FROM {}", quote(&column), quote(&table)), &[])
                .await?
                .try_get(0)?;
            if let Some(max) = max.filter(|&max| max >= next) {
                tx.execute("SELECT setval($1::TEXT::REGCLASS, $2, false)", &[&sequence, &(max + 1)]).await?;
            }
            anyhow::Ok(())
        };
        moving
            .await
            .with_context(|| format!("moving the sequence of {table}.{column} past the copied ids"))?;
    }
    Ok(())
}

/// An identifier, quoted for SQL (PostgreSQL and SQLite alike).
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str) -> Table {
        Table { name: name.into(), columns: Vec::new(), key: Vec::new() }
    }

    #[test]
    fn tables_come_after_those_they_refer_to() {
        let tables: BTreeMap<String, Table> =
            ["moves", "games", "players", "channel_settings"].map(|n| (n.to_string(), table(n))).into();
        let refers = [("games", "players"), ("moves", "games"), ("games", "games")]
            .map(|(a, b)| (a.to_string(), b.to_string()));
        let order: Vec<String> =
            in_reference_order(tables, &refers).unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(order, ["channel_settings", "players", "games", "moves"]);
        let circle: BTreeMap<String, Table> = ["a", "b"].map(|n| (n.to_string(), table(n))).into();
        let refers = [("a", "b"), ("b", "a")].map(|(a, b)| (a.to_string(), b.to_string()));
        assert!(in_reference_order(circle, &refers).unwrap_err().to_string().contains("circle"));
    }

    #[test]
    fn values_convert_exactly_or_say_why_not() {
        let column = |kind, nullable| Column { name: "c".into(), type_name: "t".into(), kind, nullable };
        assert_eq!(convert(ValueRef::Integer(1), &column(Kind::Bool, false)), Ok(Cell::Bool(Some(true))));
        assert!(
            convert(ValueRef::Integer(7), &column(Kind::Bool, false)).unwrap_err().contains("the integer 7")
        );
        assert_eq!(convert(ValueRef::Null, &column(Kind::BigInt, true)), Ok(Cell::BigInt(None)));
        assert!(convert(ValueRef::Null, &column(Kind::BigInt, false)).unwrap_err().contains("needs a value"));
        assert!(convert(ValueRef::Integer(1 << 40), &column(Kind::Int, false)).is_err());
        assert!(convert(ValueRef::Text(b"12"), &column(Kind::BigInt, false)).is_err());
        assert!(convert(ValueRef::Text(b"a\0b"), &column(Kind::Text, false)).is_err());
        assert!(convert(ValueRef::Text(b"\xff"), &column(Kind::Text, false)).is_err());
        assert_eq!(convert(ValueRef::Integer(3), &column(Kind::Double, false)), Ok(Cell::Double(Some(3.0))));
        assert!(convert(ValueRef::Integer((1 << 53) + 1), &column(Kind::Double, false)).is_err());
        assert!(convert(ValueRef::Integer(i64::MAX), &column(Kind::Double, false)).is_err());
        assert!(convert(ValueRef::Integer(i64::MAX), &column(Kind::Real, false)).is_err());
        assert_eq!(
            convert(ValueRef::Integer(1 << 40), &column(Kind::Real, false)),
            Ok(Cell::Real(Some(1_099_511_627_776.0)))
        );
        assert!(convert(ValueRef::Real(0.1), &column(Kind::Real, false)).is_err());
        assert_eq!(
            convert(ValueRef::Text(b"x"), &column(Kind::Bytes, false)),
            Ok(Cell::Bytes(Some(b"x".to_vec())))
        );
    }

    #[test]
    fn a_target_that_is_not_postgres_or_a_missing_file_is_refused_before_anything_is_opened() {
        let missing = std::env::temp_dir().join(format!("tessera-migrate-missing-{}", std::process::id()));
        let e = migrate(&missing, &Database::parse("other.sqlite"), false).unwrap_err();
        assert!(e.to_string().contains("PostgreSQL address"), "{e:#}");
        let e =
            migrate(&missing, &Database::parse("postgres://u:hunter2@127.0.0.1:1/db"), false).unwrap_err();
        assert!(e.to_string().contains("no SQLite database at"), "{e:#}");
        assert!(!missing.exists(), "nothing was made at the missing path");
    }
}
