// The AppleScript the macOS backend runs. Ids arrive as `on run argv` items, never inside the text. Inside a
// `tell application "Terminal"` block the word `tab` names Terminal's tab class, so the separator is `character id 9`.
// Selections happen innermost first (session, tab, then window) because reordering windows re-points loop references.

/** Terminal.app: find the tab whose tty is exactly argv 1; select it, bring its window to index 1, activate. */
export const TERMINAL_FOCUS = `-- tongs-agents terminal-focus
on run argv
	set targetTty to item 1 of argv
	if not (running of application id "com.apple.Terminal") then return "not-running"
	tell application id "com.apple.Terminal"
		repeat with w in windows
			repeat with t in tabs of w
				if tty of t is targetTty then
					set selected of t to true
					set targetWindow to window id (id of w)
					set index of targetWindow to 1
					set frontmost of targetWindow to true
					activate
					return "ok"
				end if
			end repeat
		end repeat
	end tell
	return "missing"
end run`;

/** Terminal.app: `<tab selected in its window><TAB><tty of selected tab of front window><TAB><Terminal frontmost>`. */
export const TERMINAL_VERIFY = `-- tongs-agents terminal-verify
on run argv
	set targetTty to item 1 of argv
	set sep to character id 9
	if not (running of application id "com.apple.Terminal") then return "not-running"
	tell application id "com.apple.Terminal"
		set isSelected to false
		repeat with w in windows
			repeat with t in tabs of w
				if tty of t is targetTty then set isSelected to selected of t
			end repeat
		end repeat
		set frontTty to ""
		if (count of windows) > 0 then set frontTty to tty of selected tab of front window
		return (isSelected as text) & sep & frontTty & sep & (frontmost as text)
	end tell
end run`;

/** Terminal.app without a tty (a tmux client's environment carries none): bring the app forward. */
export const TERMINAL_ACTIVATE = `-- tongs-agents terminal-activate
on run argv
	if not (running of application id "com.apple.Terminal") then return "not-running"
	tell application id "com.apple.Terminal" to activate
	return "ok"
end run`;

/** Terminal.app: `<frontmost><TAB><number of tabs in all windows>`. */
export const TERMINAL_STATE = `-- tongs-agents terminal-state
on run argv
	set sep to character id 9
	if not (running of application id "com.apple.Terminal") then return "not-running"
	tell application id "com.apple.Terminal"
		set tabCount to 0
		repeat with w in windows
			set tabCount to tabCount + (count of tabs of w)
		end repeat
		return (frontmost as text) & sep & (tabCount as text)
	end tell
end run`;

/** iTerm2: find the session whose id is argv 1 (the UUID of ITERM_SESSION_ID); select session, tab, window; activate. */
export const ITERM_FOCUS = `-- tongs-agents iterm2-focus
on run argv
	set targetId to item 1 of argv
	if not (running of application id "com.googlecode.iterm2") then return "not-running"
	tell application id "com.googlecode.iterm2"
		repeat with w in windows
			repeat with t in tabs of w
				repeat with s in sessions of t
					if id of s is targetId then
						tell s to select
						tell t to select
						select w
						activate
						return "ok"
					end if
				end repeat
			end repeat
		end repeat
	end tell
	return "missing"
end run`;

/** iTerm2: `<session current in its window><TAB><id of current session of current tab of current window><TAB><frontmost>`. */
export const ITERM_VERIFY = `-- tongs-agents iterm2-verify
on run argv
	set targetId to item 1 of argv
	set sep to character id 9
	if not (running of application id "com.googlecode.iterm2") then return "not-running"
	tell application id "com.googlecode.iterm2"
		set isSelected to false
		repeat with w in windows
			repeat with t in tabs of w
				repeat with s in sessions of t
					if id of s is targetId then set isSelected to ((id of current session of current tab of w) is targetId)
				end repeat
			end repeat
		end repeat
		set frontId to ""
		if (count of windows) > 0 then set frontId to id of current session of current tab of current window
		return (isSelected as text) & sep & frontId & sep & (frontmost as text)
	end tell
end run`;
