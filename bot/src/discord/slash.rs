//! Discord's slash commands, built from the command table, and a slash command read back.

use anyhow::Result;
use serenity::all::{
    CommandOptionType, CreateCommand, CreateCommandOption, ResolvedOption, ResolvedValue, UserId,
};

use tessera_core::command_spec::{Kind, MAX_DELAY_HOURS, OptionSpec, Raw};
use tessera_core::command_table::COMMANDS;
use tessera_core::commands::Command;
use tessera_core::commands::{by_path, from_slash};
use tessera_core::service::User;

/// The slash commands, read off the command table: a group's commands become its subcommands.
pub(super) fn slash_commands() -> Vec<CreateCommand> {
    let mut list: Vec<CreateCommand> = Vec::new();
    let mut groups_done: Vec<&str> = Vec::new();
    for spec in COMMANDS.iter().filter(|c| c.slash) {
        match spec.group {
            None => list.push(
                spec.options.iter().fold(CreateCommand::new(spec.name).description(spec.summary), |c, o| {
                    c.add_option(slash_option(o))
                }),
            ),
            Some(group) if !groups_done.contains(&group.name) => {
                groups_done.push(group.name);
                let subs =
                    COMMANDS.iter().filter(|c| c.slash && c.group.is_some_and(|g| g.name == group.name));
                list.push(subs.fold(CreateCommand::new(group.name).description(group.summary), |c, sub| {
                    let start =
                        CreateCommandOption::new(CommandOptionType::SubCommand, sub.name, sub.summary);
                    c.add_option(sub.options.iter().fold(start, |s, o| s.add_sub_option(slash_option(o))))
                }));
            }
            Some(_) => {}
        }
    }
    list
}

/// An option as Discord shows it: its type, bounds and choices follow from its kind.
pub(super) fn slash_option(o: &OptionSpec) -> CreateCommandOption {
    let kind = match o.kind {
        Kind::Game | Kind::Tournament | Kind::Number { .. } | Kind::Days | Kind::Delay => {
            CommandOptionType::Integer
        }
        Kind::User { .. } => CommandOptionType::User,
        Kind::Flag { .. } => CommandOptionType::Boolean,
        Kind::Opponent | Kind::Variant | Kind::Choice { .. } | Kind::Text { .. } => CommandOptionType::String,
    };
    let mut option = CreateCommandOption::new(kind, o.name, o.about).required(o.required);
    if o.autocomplete() {
        option = option.set_autocomplete(true);
    }
    let (min, max) = match o.kind {
        Kind::Game | Kind::Tournament => (Some(1), None),
        Kind::Number { min, max } => (Some(min), max),
        Kind::Days => (Some(1), Some(30)),
        Kind::Delay => (Some(1), Some(MAX_DELAY_HOURS)),
        _ => (None, None),
    };
    if let Some(min) = min {
        option = option.min_int_value(min as u64);
    }
    if let Some(max) = max {
        option = option.max_int_value(max as u64);
    }
    match o.kind {
        Kind::Choice { choices, .. } => {
            choices.iter().fold(option, |opt, c| opt.add_string_choice(c.label, c.value))
        }
        Kind::Text { max } => option.max_length(max as u16),
        _ => option,
    }
}

/// A slash command as a service command, and the users it names. Users are kept aside (the
/// service reads them as mentions); the other options are decoded by the command table.
pub(super) fn slash_to_command(
    name: &str,
    options: &[ResolvedOption],
    bot: Option<UserId>,
) -> Result<(Command, Vec<User>), String> {
    let (path, options) = match options.iter().find_map(|o| match &o.value {
        ResolvedValue::SubCommand(inner) => Some((o.name, inner.as_slice())),
        _ => None,
    }) {
        Some((sub, inner)) => (format!("{name} {sub}"), inner),
        None if COMMANDS.iter().any(|c| c.group.is_some_and(|g| g.name == name)) => {
            return Err(format!("say what to do, like `/{name} join`"));
        }
        None => (name.to_string(), options),
    };
    let mut users = Vec::new();
    let mut given: Vec<(&str, Raw)> = Vec::new();
    for o in options {
        let raw = match &o.value {
            ResolvedValue::Integer(n) => Raw::Number(*n),
            ResolvedValue::String(s) => Raw::Word(s),
            ResolvedValue::Boolean(b) => Raw::Flag(*b),
            ResolvedValue::User(u, _) => {
                let person = by_path(&path)
                    .and_then(|c| c.option(o.name))
                    .is_some_and(|spec| matches!(spec.kind, Kind::User { person: true }));
                // Other bots cannot play; this one can (a practice game).
                if person && u.bot && Some(u.id) != bot {
                    let name = tessera_core::names::clean(&u.name);
                    return Err(format!("{name} is a bot and cannot play; challenge a person, or me"));
                }
                users.push(user_of(u));
                Raw::User
            }
            _ => continue,
        };
        given.push((o.name, raw));
    }
    let cmd = from_slash(&path, &given).map_err(|e| e.0)?;
    Ok((cmd, users))
}

pub(super) fn user_of(u: &serenity::all::User) -> User {
    User::new(u.id.to_string(), u.global_name.clone().unwrap_or_else(|| u.name.clone()))
}
