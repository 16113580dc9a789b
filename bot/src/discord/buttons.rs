//! Buttons under a board: which a reply gets, and which command a press stands for.

use serenity::all::{ButtonStyle, CreateActionRow, CreateButton};

use tessera_core::command_spec::{ButtonSpec, Tone};
use tessera_core::commands::Command;
use tessera_core::commands::{button_command, button_spec};
use tessera_core::service::Actions;

/// What a button press asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Press {
    /// Ask first, privately: the game, and the button whose `confirm` says how.
    Confirm(i64, &'static str),
    Run(Command),
}

/// The button a custom id (`tessera:<id>:<number>`) names, and its number.
pub(super) fn read_id(custom_id: &str) -> Option<(&'static ButtonSpec, i64)> {
    let mut parts = custom_id.split(':');
    if parts.next()? != "tessera" {
        return None;
    }
    Some((button_spec(parts.next()?)?, parts.next()?.parse().ok()?))
}

/// What pressing `spec` on game or tournament `number` asks for.
pub(super) fn press(spec: &'static ButtonSpec, number: i64) -> Option<Press> {
    if spec.confirm.is_some() {
        return Some(Press::Confirm(number, spec.id));
    }
    button_command(spec, number).ok().map(Press::Run)
}

/// Reads a button's custom id, by the command table.
#[cfg(test)]
pub(super) fn button_press(custom_id: &str) -> Option<Press> {
    read_id(custom_id).and_then(|(spec, number)| press(spec, number))
}

/// A button from the table, on game or tournament `number`.
pub(super) fn make_button(spec: &ButtonSpec, number: i64) -> CreateButton {
    let style = match spec.tone {
        Tone::Go => ButtonStyle::Success,
        Tone::Neutral => ButtonStyle::Secondary,
        Tone::Danger => ButtonStyle::Danger,
    };
    CreateButton::new(format!("tessera:{}:{number}", spec.id)).label(spec.label).style(style)
}

/// The buttons under a reply.
pub(super) fn buttons(actions: Option<Actions>) -> Vec<CreateActionRow> {
    let Some((number, ids)) = actions.map(Actions::buttons) else { return Vec::new() };
    let row = ids.iter().filter_map(|id| button_spec(id)).map(|b| make_button(b, number)).collect();
    vec![CreateActionRow::Buttons(row)]
}
