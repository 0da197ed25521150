import { createContext, useContext } from 'react';
import { COLOR_THEME, type Theme } from '../src/text/theme.js';

export const ThemeContext = createContext<Theme>(COLOR_THEME);

export const useTheme = (): Theme => useContext(ThemeContext);
